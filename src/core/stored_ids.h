#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace llmux {

/// The ids a replica knows to be in a shared store (freezes, latency verdicts), for the "gone
/// from the store means removed elsewhere" rule of adopting a snapshot — with the order of its
/// own saves, so a snapshot whose read began before a save was noted does not take that entry's
/// absence for a removal (the read could not see the save yet). Not thread-safe: its owner's
/// lock guards it.
class StoredIds {
 public:
  /// Taken before a snapshot is read: what `adopt` compares the notes with.
  std::uint64_t mark() const { return mark_; }
  /// This replica's save of `id` reached the store.
  void noteStored(std::string const& id) { ids_[id] = ++mark_; }
  /// Whether `id`'s absence from a snapshot read from `read_mark` on means it left the store:
  /// it was known stored before that read began.
  bool goneUnless(std::string_view id, std::uint64_t read_mark) const {
    auto it = ids_.find(std::string(id));
    return it != ids_.end() && it->second <= read_mark;
  }
  /// After a snapshot read from `read_mark` on is adopted: its ids, and the saves noted since.
  void replace(std::unordered_set<std::string> const& snapshot, std::uint64_t read_mark) {
    std::unordered_map<std::string, std::uint64_t> next;
    for (auto const& id : snapshot) next.emplace(id, 0);
    for (auto const& [id, noted] : ids_) {
      if (noted > read_mark) next.emplace(id, noted);
    }
    ids_ = std::move(next);
  }

 private:
  std::unordered_map<std::string, std::uint64_t> ids_;  ///< id → the mark its save was noted at (0: seen in a snapshot)
  std::uint64_t mark_ = 0;
};

}  // namespace llmux
