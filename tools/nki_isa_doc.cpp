// nki_isa_doc.cpp - prints docs/isa.md, generated from the instruction table.
#include <iostream>

#include "isa/doc.h"

int main() {
  std::cout << nkisim::isa::render_isa_markdown();
  return 0;
}
