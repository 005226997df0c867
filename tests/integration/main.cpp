#define BOOST_TEST_MODULE veil_integration_test
#include <boost/test/unit_test.hpp>
