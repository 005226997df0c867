#define BOOST_TEST_MODULE veil_protocols_test
#include <boost/test/unit_test.hpp>
