#define BOOST_TEST_MODULE veil_learners_test
#include <boost/test/unit_test.hpp>
