// check/gradcheck_report.hpp -- what fg::gradcheck is asked (GradcheckOptions) and what it answers (GradcheckReport,
// and the verdict that fills it).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fusegrad/shape/extents.hpp>

namespace fusegrad {

/// What fg::gradcheck compares and how closely. An element passes when
/// |analytic - reference| <= atol + rtol * |reference|.
struct GradcheckOptions {
  /// Tolerances; unset, they follow the inputs' scalar type: 1e-7 and 1e-6 for double,
  /// 1e-4 and 1e-3 for float (whose gradient is compared with references computed in double).
  std::optional<double> atol{}, rtol{};
  /// The central-difference step of element x is eps * max(1, |x|).
  double eps = 1e-5;
  /// Use the complex step as the reference where it applies (an analytic function, a fn that
  /// takes complex inputs); central differences otherwise.
  bool complex_step = true;
};

/// What fg::gradcheck found. `passed` (also `bool(report)`) is the verdict; the rest says where
/// the analytic gradient is furthest from its reference, and how far. Printable.
struct GradcheckReport {
  bool passed = true;
  std::string reference;          // "complex step" or "central differences"
  std::string complex_step_note;  // why the complex step was not used, if it was not
  double atol = 0, rtol = 0;
  double max_abs_error = 0;  // over every element of every input
  double max_rel_error = 0;  // |analytic - reference| / |reference|, where the reference is not 0
  std::size_t elements = 0;  // how many were checked
  // The element nearest to failing (largest error over its tolerance):
  std::size_t worst_input = 0;           // which input, counted from 0
  std::vector<std::size_t> worst_index;  // its position in that input (row-major, one index per axis)
  double worst_analytic = 0, worst_reference = 0, worst_central = 0;

  explicit operator bool() const noexcept { return passed; }
  [[nodiscard]] bool used_complex_step() const noexcept { return reference == "complex step"; }

  friend std::ostream& operator<<(std::ostream& os, const GradcheckReport& r) {
    os << "gradcheck " << (r.passed ? "passed" : "FAILED") << " against " << (r.used_complex_step() ? "the " : "")
       << r.reference << " (" << r.elements << " elements, atol " << r.atol << ", rtol " << r.rtol << ")";
    if (!r.complex_step_note.empty()) os << "; complex step not used: " << r.complex_step_note;
    os << "\n  largest error: " << r.max_abs_error << " absolute, " << r.max_rel_error << " relative";
    if (r.elements == 0) return os;
    os << "\n  worst element: input " << r.worst_input << " at (";
    for (std::size_t i = 0; i < r.worst_index.size(); ++i) os << (i ? ", " : "") << r.worst_index[i];
    os << "): analytic " << r.worst_analytic << ", " << r.reference << " " << r.worst_reference;
    if (r.used_complex_step()) os << ", central differences " << r.worst_central;
    return os;
  }
};

namespace detail {

// One input's gradients, flat and row-major, as the three methods give them.
struct checked_input {
  Extents extents;
  std::vector<double> analytic, central, complex_step;
};

inline std::vector<std::size_t> unravel(std::size_t flat, const Extents& e) {
  std::vector<std::size_t> index(e.rank());
  for (std::size_t axis = e.rank(); axis-- > 0;) {
    index[axis] = flat % e[axis];
    flat /= e[axis];
  }
  return index;
}

template <class T>
double real_part(const T& v) {
  if constexpr (requires { v.real(); })
    return static_cast<double>(v.real());
  else
    return static_cast<double>(v);
}

// The verdict over every element of every input.
inline GradcheckReport judge(const std::vector<checked_input>& inputs, bool use_complex_step, std::string note,
                             double atol, double rtol) {
  GradcheckReport r;
  r.reference = use_complex_step ? "complex step" : "central differences";
  r.complex_step_note = std::move(note);
  r.atol = atol;
  r.rtol = rtol;
  double worst_ratio = -1;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const checked_input& in = inputs[k];
    const std::vector<double>& reference = use_complex_step ? in.complex_step : in.central;
    for (std::size_t j = 0; j < in.analytic.size(); ++j) {
      const double a = in.analytic[j], ref = reference[j];
      // Where either is not finite, they agree only when they are the same infinity; otherwise the error is infinite
      // and the element fails. A NaN fails, as in torch.autograd.gradcheck (allclose without equal_nan).
      const bool finite = std::isfinite(a) && std::isfinite(ref);
      const bool same = a == ref;
      const double err = finite ? std::abs(a - ref) : same ? 0.0 : INFINITY;
      const double tolerance = atol + rtol * (std::isfinite(ref) ? std::abs(ref) : 0.0);
      ++r.elements;
      r.max_abs_error = std::max(r.max_abs_error, err);
      if (!finite && !same)
        r.max_rel_error = INFINITY;  // so that the report never reads "0 relative" beside an infinite error
      else if (finite && ref != 0)
        r.max_rel_error = std::max(r.max_rel_error, err / std::abs(ref));
      if (err > tolerance) r.passed = false;
      const double ratio = err == 0 ? 0.0 : tolerance > 0 ? err / tolerance : INFINITY;
      if (ratio > worst_ratio) {
        worst_ratio = ratio;
        r.worst_input = k;
        r.worst_index = unravel(j, in.extents);
        r.worst_analytic = a;
        r.worst_reference = ref;
        r.worst_central = in.central[j];
      }
    }
  }
  return r;
}

// Tolerances when the options leave them unset, by the inputs' scalar type.
template <class T>
std::pair<double, double> default_tolerances() {
  if constexpr (std::is_same_v<T, float>)
    return {1e-4, 1e-3};
  else
    return {1e-7, 1e-6};
}

}  // namespace detail

}  // namespace fusegrad
