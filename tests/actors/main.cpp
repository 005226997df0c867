#define BOOST_TEST_MODULE veil_actors_test
#include <boost/test/unit_test.hpp>
