// The one translation unit that compiles Asio, Asio's OpenSSL layer and Beast (separate
// compilation): every other file includes only the narrow headers it needs.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
