// calibrate.h - `nki-sim calibrate` (docs/device.md): device results recorded by a bundle's run_on_device.py,
// set beside the same kernel re-simulated from the bundle now, as a table of model error.
#pragma once
#include <string>
#include <vector>

namespace nkisim::api {

struct CalibrationRow {
  std::string results_file, bundle;  // device_results.json and the bundle folder it belongs to
  std::string kernel, shape, target;  // shape: the input shapes, "256x1024,256x1024"
  int lnc = 1;
  double device_us = 0;     // the device's median latency (latency_us.p50)
  std::string method;       // how the device measured it ("neuronxcc.nki.benchmark", "timed loop")
  double simulated_us = 0;  // nki-sim now, from the bundle alone
  double error_percent = 0;  // (simulated - device) / device x 100
  bool numerics_match = false;
  double max_abs_error = 0;  // the largest over the outputs
};

struct Calibration {
  std::vector<CalibrationRow> rows;
  double median_abs_error_percent = 0, max_abs_error_percent = 0;
  int numerics_agree = 0;  // rows whose outputs all matched nki-sim's on the device
};

// Each path is a device_results.json (or a bundle folder holding one); its bundle is the folder it is in.
// Checks the results file, the bundle (read_manifest: every file's sha256) and that the results were recorded
// for this bundle's kernel and manifest; re-runs the kernel from the bundle. Throws nkisim::Error located at
// the file at fault.
Calibration calibrate(const std::vector<std::string>& results_paths);

std::string format_calibration(const Calibration& c);  // the table, then median / max error and numerics
std::string calibration_json(const Calibration& c);    // --json

}  // namespace nkisim::api
