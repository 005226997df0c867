#define BOOST_TEST_MODULE veil_apps_test
#include <boost/test/unit_test.hpp>
