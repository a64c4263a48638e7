// Asio's and Beast's implementations, compiled once for the whole part (BOOST_ASIO_SEPARATE_COMPILATION and
// BOOST_BEAST_SEPARATE_COMPILATION are set on the target), instead of in every file that includes them.
#include <boost/asio/impl/src.hpp>
#include <boost/beast/src.hpp>
