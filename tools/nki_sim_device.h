// nki_sim_device.h - nki-sim's device sub-commands (bundle, bundle-run, calibrate; docs/device.md).
#pragma once

namespace nkisim::cli {

// Runs `nki-sim bundle|bundle-run|calibrate ...` when argv[1] names one and returns its exit status; -1 otherwise.
int run_device_command(int argc, char** argv);

}  // namespace nkisim::cli
