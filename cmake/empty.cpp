// empty.cpp - placeholder source for a layer library that has no sources yet.
