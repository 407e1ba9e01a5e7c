// csv.hpp -- reads the two-column `x,y` files of examples/data (a helper for the examples, not the library).
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace example {

struct xy_data {
  Eigen::ArrayXd x, y;
};

/// Reads a CSV file with a header line and two numeric columns.
inline xy_data read_xy(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  std::getline(in, line);  // header
  std::vector<double> xs, ys;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream row(line);
    std::string x, y;
    std::getline(row, x, ',');
    std::getline(row, y, ',');
    xs.push_back(std::stod(x));
    ys.push_back(std::stod(y));
  }
  return {Eigen::Map<Eigen::ArrayXd>(xs.data(), Eigen::Index(xs.size())),
          Eigen::Map<Eigen::ArrayXd>(ys.data(), Eigen::Index(ys.size()))};
}

}  // namespace example
