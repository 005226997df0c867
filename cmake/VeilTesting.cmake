# veil_add_test_binary(TARGET LAYER LIBS...)
#
# One Boost.Test binary per layer, built from tests/<LAYER>/**/*.cpp, and one
# ctest per test file; VEIL_TEST_PCH_<LAYER> lists headers to precompile
# besides Boost.Test's. A file tests/<LAYER>/a/b.cpp must wrap its cases in
# nested suites a and b, so that ctest "<LAYER>.a.b" runs --run_test=a/b
# (the same mapping as CAF's caf_add_test_suites).
function(veil_add_test_binary target layer)
  set(dir "${CMAKE_CURRENT_SOURCE_DIR}/tests/${layer}")
  file(GLOB_RECURSE files CONFIGURE_DEPENDS "${dir}/*.cpp")
  file(GLOB_RECURSE support CONFIGURE_DEPENDS
       "${CMAKE_CURRENT_SOURCE_DIR}/tests/support/*.cpp")
  add_executable(${target} ${files} ${support})
  target_link_libraries(${target} PRIVATE ${ARGN} Boost::unit_test_framework)
  target_include_directories(${target} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  # Build time, which CI's budget is mostly spent on: tests need correct
  # code, not the libraries' fastest, and -O1 compiles a test file about 30%
  # faster than -O2 (the code under test is in the libraries, at -O2).
  # Boost.Test's header is parsed once per binary, not once per file.
  # At -O1, g++ 12 warns falsely on std::string(...) + "literal"
  # (-Warray-bounds and -Wstringop-overflow inside libstdc++'s
  # char_traits); -O2 does not inline those paths the same way.
  target_compile_options(${target} PRIVATE -O1 -Wno-array-bounds
                                           -Wno-stringop-overflow)
  target_precompile_headers(${target} PRIVATE <boost/test/unit_test.hpp>
                                              ${VEIL_TEST_PCH_${layer}})
  # main.cpp defines BOOST_TEST_MODULE before its include of the header.
  set_source_files_properties("${dir}/main.cpp" PROPERTIES
                              SKIP_PRECOMPILE_HEADERS ON
                              SKIP_UNITY_BUILD_INCLUSION ON)
  target_compile_definitions(${target} PRIVATE
    VEIL_SHARED_DIR="${VEIL_SHARED_DIR}"
    VEIL_BINARY_DIR="${CMAKE_BINARY_DIR}"
    VEIL_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
  # Unity batches (VEIL_UNITY_BUILD) never mix folders: a test file's
  # using-directives and suite names (each suite is a namespace) reach the
  # files after it in its batch, and the files of one folder test one
  # subject under the same names.
  set_target_properties(${target} PROPERTIES UNITY_BUILD_MODE GROUP)
  set(batch_folder "")
  set(batch_files 0)
  set(batch_index 0)
  foreach(file IN LISTS files)
    get_filename_component(folder "${file}" DIRECTORY)
    if(NOT folder STREQUAL batch_folder OR batch_files EQUAL 8)
      math(EXPR batch_index "${batch_index} + 1")
      set(batch_folder "${folder}")
      set(batch_files 0)
    endif()
    math(EXPR batch_files "${batch_files} + 1")
    set_source_files_properties("${file}" PROPERTIES UNITY_GROUP
                                "${target}_${batch_index}")
  endforeach()
  foreach(file IN LISTS files)
    file(RELATIVE_PATH rel "${dir}" "${file}")
    string(REGEX REPLACE "\\.cpp$" "" suite "${rel}")
    if(suite STREQUAL "main")
      continue()
    endif()
    string(REPLACE "/" "." name "${suite}")
    add_test(NAME "${layer}.${name}"
             COMMAND ${target} "--run_test=${suite}" --color_output=no)
    set_tests_properties("${layer}.${name}" PROPERTIES TIMEOUT 600
                                                      LABELS "${layer}")
  endforeach()
endfunction()
