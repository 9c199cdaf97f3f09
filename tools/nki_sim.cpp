// nki_sim.cpp - the nki-sim command line (being written).
int main() { return 0; }
