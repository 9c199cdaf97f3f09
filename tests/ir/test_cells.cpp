// test_cells.cpp - the dependency cells of the semaphore pass (ir/cells.h): per-stream latest readers kept
// inline up to four streams and in a heap array beyond, deep copies, and the state comparison runs merge on.
#include <doctest/doctest.h>

#include "ir/cells.h"

using nkisim::ir::cells::Cell;

TEST_CASE("Cell: the latest reader per stream, in any order, past the inline slots; a write clears them") {
  Cell c;
  const int streams[] = {9, 2, 30, 5, 0, 17, 2, 9};  // 6 distinct streams, two read again later
  int32_t op = 100;
  for (int s : streams) c.read(s, op++);
  CHECK(c.readers == ((1u << 9) | (1u << 2) | (1u << 30) | (1u << 5) | (1u << 0) | (1u << 17)));
  CHECK(c.read_by(9) == 107);
  CHECK(c.read_by(2) == 106);
  CHECK(c.read_by(30) == 102);
  CHECK(c.read_by(5) == 103);
  CHECK(c.read_by(0) == 104);
  CHECK(c.read_by(17) == 105);
  c.write(200);
  CHECK(c.last_write == 200);
  CHECK(c.readers == 0u);
  c.read(3, 201);
  CHECK(c.read_by(3) == 201);

  // Up to four streams stay inline, inserted in stream order whatever the order of the reads.
  Cell d;
  d.read(7, 1);
  d.read(1, 2);
  d.read(4, 3);
  d.read(1, 4);
  d.read(6, 5);
  CHECK(d.read_by(1) == 4);
  CHECK(d.read_by(4) == 3);
  CHECK(d.read_by(6) == 5);
  CHECK(d.read_by(7) == 1);
}

TEST_CASE("Cell: copies are deep and same_state compares writer and per-stream readers") {
  Cell a;
  for (int s = 0; s < 8; ++s) a.read(s, 10 + s);
  Cell b = a;  // heap readers copied
  CHECK(same_state(a, b));
  b.read(3, 99);
  CHECK(a.read_by(3) == 13);
  CHECK(!same_state(a, b));
  Cell c;
  c.read(1, 11);
  c.read(0, 10);
  Cell d;
  d.read(0, 10);
  d.read(1, 11);
  CHECK(same_state(c, d));  // the same state reached by reads in another order
  d.read(1, 12);
  CHECK(!same_state(c, d));
  c = a;
  CHECK(same_state(c, a));
  a.write(5);
  CHECK(c.readers == 0xFFu);
  CHECK(!same_state(c, a));
}
