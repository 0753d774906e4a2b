#include "store/record_queue.h"

namespace llmux::store {

// Compiled once here; every other user of the request log's queue links this instance.
template class WriteQueue<RequestRecord>;

}  // namespace llmux::store
