// compile_cost/eigen_only.cpp -- the reference: a translation unit that uses Eigen alone.
#include <Eigen/Core>

double value(const Eigen::ArrayXd& x) { return (x * x.sin()).sum(); }
