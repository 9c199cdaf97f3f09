# embed_text.cmake - cmake -DIN=FILE -DOUT=HEADER -DNAME=IDENT -P embed_text.cmake: writes HEADER defining
# `inline constexpr char IDENT[]` holding FILE's text (a raw string literal; FILE must not contain ")EMBED").
file(READ ${IN} content)
string(FIND "${content}" ")EMBED\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter )EMBED\"")
endif()
file(WRITE ${OUT}.tmp "// Generated from ${IN} by cmake/embed_text.cmake; do not edit.\n#pragma once\n"
     "inline constexpr char ${NAME}[] = R\"EMBED(${content})EMBED\";\n")
file(RENAME ${OUT}.tmp ${OUT})
