// nn/save_load.hpp -- save and load: a model's named parameters in a small text file, read back exactly, and never
// half-loaded.
#pragma once

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <locale>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/nn/parameters.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/tensor_in_place.hpp>

namespace fusegrad::nn {

// The format, one parameter per two lines between the first and the last:
//   fusegrad parameters 1
//   <name> <scalar type> <rank> <extent>...
//   <value> ...                 (hexadecimal floating point as std::to_chars writes it: exact, in any locale;
//                                a NaN as nan: and its 64 bits in hexadecimal, which keeps its sign and payload,
//                                a float's as the double NaN of the same sign and payload, signalling or quiet;
//                                read, nan and -nan stand for the quiet NaN of their sign)
//   end                         (a file cut short, even inside a number, has none)
namespace detail {
inline constexpr std::string_view parameters_header = "fusegrad parameters 1";

struct stored_parameter {
  std::string scalar;
  Extents extents;
  std::vector<double> values;
};

inline constexpr std::string_view nan_prefix = "nan:";

inline std::string hexfloat(double v) {
  char buffer[64];
  if (std::isnan(v)) {
    const auto written = std::to_chars(buffer, buffer + sizeof buffer, std::bit_cast<std::uint64_t>(v), 16);
    return std::string(nan_prefix) + std::string(buffer, written.ptr);
  }
  const auto written = std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::hex);
  return std::string(buffer, written.ptr);
}

// A float as a double, exactly. A NaN keeps its sign, its payload and whether it is quiet, where converting it
// would make a signalling NaN quiet.
inline double widened(float v) {
  if (!std::isnan(v)) return double(v);
  const auto bits = std::bit_cast<std::uint32_t>(v);
  return std::bit_cast<double>(std::uint64_t(bits >> 31) << 63 | std::uint64_t(0x7ff) << 52 |
                               std::uint64_t(bits & 0x7fffff) << 29);
}
inline double widened(double v) { return v; }

// Whether T holds v exactly, a NaN's payload too.
template <std::floating_point T>
bool holds_exactly(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return true;
  } else {
    static_assert(std::is_same_v<T, float>, "fusegrad: parameters files hold float and double values");
    if (!std::isnan(v))
      return std::isinf(v) || (std::abs(v) <= double(std::numeric_limits<float>::max()) && double(float(v)) == v);
    const std::uint64_t payload = std::bit_cast<std::uint64_t>(v) & ((std::uint64_t(1) << 52) - 1);
    return payload % (std::uint64_t(1) << 29) == 0 && payload != 0;  // nothing cut off, and still a NaN
  }
}
// v as a T, for a v that T holds exactly: the reverse of widened.
template <std::floating_point T>
T narrowed(double v) {
  if constexpr (std::is_same_v<T, float>) {
    if (std::isnan(v)) {
      const auto bits = std::bit_cast<std::uint64_t>(v);
      return std::bit_cast<float>(std::uint32_t(bits >> 63) << 31 | std::uint32_t(0xff) << 23 |
                                  std::uint32_t(bits >> 29 & 0x7fffff));
    }
  }
  return T(v);
}

// The value a token of the file stands for, or nothing when it is not one hexfloat writes, or "nan" or "-nan" (a NaN
// without its bits): the quiet NaN of that sign.
inline std::optional<double> read_hexfloat(std::string_view token) {
  if (token == "nan" || token == "-nan")
    return std::copysign(std::numeric_limits<double>::quiet_NaN(), token.front() == '-' ? -1.0 : 1.0);
  const char* end = token.data() + token.size();
  if (token.starts_with(nan_prefix)) {
    std::uint64_t bits = 0;
    const auto read = std::from_chars(token.data() + nan_prefix.size(), end, bits, 16);
    if (read.ec != std::errc() || read.ptr != end || !std::isnan(std::bit_cast<double>(bits))) return std::nullopt;
    return std::bit_cast<double>(bits);
  }
  // Every finite number save writes has an exponent (1p+0, 0p+0, 1.8p-3): a token without one, such as a decimal
  // 0.5, is not one of its numbers, and would read as hexadecimal digits (0x0.5 = 0.3125).
  if (token.find('p') == std::string_view::npos && token != "inf" && token != "-inf") return std::nullopt;
  double v = 0;
  const auto read = std::from_chars(token.data(), end, v, std::chars_format::hex);
  if (read.ec != std::errc() || read.ptr != end) return std::nullopt;
  return v;
}
}  // namespace detail

/// Writes every parameter of the model, float and double ones alike, to `path` in member order, each with its name
/// (as nn::named_parameters names it), scalar type and shape, exactly (hexadecimal floating point). Throws value_error
/// when the model has none (its members are not declared with Boost.Hana, say) or holds a complex parameter,
/// fusegrad::error when the file cannot be written.
template <class Model>
void save(const Model& model, const std::filesystem::path& path) {
  std::ostringstream out;
  out.imbue(std::locale::classic());  // counts as digits alone: a program's locale may group them ("1,200")
  out << detail::parameters_header << "\n";
  std::size_t written = 0;
  detail::for_each_parameter(model, [&]<Scalar T>(const std::string& name, const BasicTensor<T>& tensor) {
    if (name.empty())
      throw value_error(
          "fusegrad::nn::save: the model is a bare tensor, and the file names each parameter; save a struct that "
          "holds it (its member's name names it)");
    if constexpr (!std::floating_point<T>) {
      throw value_error("fusegrad::nn::save: parameter " + name + " holds " + std::string(scalar_name<T>()) +
                        ", and the file holds float and double parameters only");
    } else {
      const Extents& e = tensor.shape();
      out << name << ' ' << scalar_name<T>() << ' ' << e.rank();
      for (std::size_t a = 0; a < e.rank(); ++a) out << ' ' << e[a];
      out << '\n';
      for (std::size_t i = 0; i < tensor.numel(); ++i)
        out << (i ? " " : "") << detail::hexfloat(detail::widened(tensor.data()[i]));
      out << '\n';
      ++written;
    }
  });
  if (written == 0)
    throw value_error(
        "fusegrad::nn::save: the model has no parameters (tensors that require grad) to save; are its "
        "members declared with BOOST_HANA_DEFINE_STRUCT?");
  out << "end\n";
  std::ofstream file(path, std::ios::binary);
  file << out.str();
  file.close();
  if (!file) throw error("fusegrad::nn::save: cannot write \"" + path.string() + "\"");
}

/// Reads parameters written by nn::save into the model's, by name, float and double ones alike. Every parameter of
/// the model must be in the file with its shape and scalar type, and nothing else: otherwise, or when the file is not
/// such a file, it throws value_error naming the parameter (or the line) and the model is left as it was, since the
/// file is read and checked whole before any value changes.
template <class Model>
void load(Model& model, const std::filesystem::path& path) {
  const std::string where = "fusegrad::nn::load(\"" + path.string() + "\")";
  std::ifstream file(path, std::ios::binary);
  if (!file) throw error(where + ": cannot open the file");
  // A line as save wrote it, or as a copy made on Windows (a checkout with git's autocrlf) ends it: "\r\n".
  const auto read_line = [&file](std::string& text) -> bool {
    if (!std::getline(file, text)) return false;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    return true;
  };
  std::string line;
  if (!read_line(line) || line != detail::parameters_header)
    throw value_error(where + ": not a fusegrad parameters file (its first line is not \"" +
                      std::string(detail::parameters_header) + "\")");
  std::map<std::string, detail::stored_parameter> stored;
  bool ended = false;
  // save ends every line with a newline: a line other than the last that ends the file without one was cut, as was a
  // file that ends before the end line.
  const auto cut_short = [&] { return value_error(where + ": the file is cut short (it has no end line)"); };
  for (std::size_t line_number = 2; read_line(line); line_number += 2) {
    if (line != "end" && file.eof()) throw cut_short();
    if (line == "end") {
      ended = std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()).empty();
      if (!ended) throw value_error(where + ": line " + std::to_string(line_number) + ": text after the end line");
      break;
    }
    std::istringstream head(line);
    head.imbue(std::locale::classic());
    std::string name;
    detail::stored_parameter p;
    std::string rank_token;
    if (!(head >> name >> p.scalar >> rank_token))
      throw value_error(where + ": line " + std::to_string(line_number) + " is not \"<name> <type> <rank> <extents>\"");
    // A count, read without a sign: "-1" fails (where >> into an unsigned type would wrap it).
    const auto count = [&](const std::string& token, std::size_t& n, const char* what) {
      const auto read = std::from_chars(token.data(), token.data() + token.size(), n);
      if (read.ec != std::errc() || read.ptr != token.data() + token.size())
        throw value_error(where + ": parameter " + name + ": " + what + " \"" + token + "\" is not a count");
    };
    std::size_t rank = 0;
    count(rank_token, rank, "rank");
    if (rank > Extents::max_rank)
      throw value_error(where + ": parameter " + name + ": rank " + rank_token + ", where a tensor has at most " +
                        std::to_string(Extents::max_rank) + " axes");
    std::vector<std::size_t> extents(rank);
    for (std::size_t& e : extents) {
      std::string token;
      if (!(head >> token)) throw value_error(where + ": parameter " + name + ": its extents are cut short");
      count(token, e, "extent");
    }
    if (std::string extra; head >> extra)
      throw value_error(where + ": parameter " + name + ": \"" + extra + "\" after its " + std::to_string(rank) +
                        " extents");
    try {
      p.extents = Extents(std::span<const std::size_t>(extents));
    } catch (const shape_error& e) {  // more elements than memory holds
      throw value_error(where + ": parameter " + name + ": " + e.what());
    }
    std::string values_line;
    if (!read_line(values_line) || file.eof()) throw cut_short();
    std::istringstream values(values_line);
    values.imbue(std::locale::classic());
    for (std::string token; values >> token;) {
      const std::optional<double> v = detail::read_hexfloat(token);
      if (!v)
        throw value_error(
            where + ": parameter " + name + ": \"" + token +
            "\" is not a number as save writes them (hexadecimal with an exponent, such as 1p-1 for 0.5)");
      p.values.push_back(*v);
    }
    if (p.values.size() != p.extents.size())
      throw value_error(where + ": parameter " + name + ": " + std::to_string(p.values.size()) + " values for shape " +
                        p.extents.to_string());
    if (!stored.emplace(name, std::move(p)).second) throw value_error(where + ": parameter " + name + " appears twice");
  }
  if (!ended) throw cut_short();
  std::vector<NamedParameter<double>> doubles;
  std::vector<NamedParameter<float>> floats;
  detail::for_each_parameter(model, [&]<Scalar T>(const std::string& name, const BasicTensor<T>& tensor) {
    if (name.empty())
      throw value_error(where + ": the model is a bare tensor, and the file names each parameter; load into a " +
                        "struct that holds it (its member's name names it)");
    if constexpr (std::is_same_v<T, double>)
      doubles.push_back({name, tensor});
    else if constexpr (std::is_same_v<T, float>)
      floats.push_back({name, tensor});
    else
      throw value_error(where + ": parameter " + name + " holds " + std::string(scalar_name<T>()) +
                        ", and the file holds float and double parameters only");
  });
  const auto check = [&]<std::floating_point T>(const NamedParameter<T>& target) {
    const auto it = stored.find(target.name);
    if (it == stored.end()) throw value_error(where + ": parameter " + target.name + " is not in the file");
    if (it->second.scalar != scalar_name<T>())
      throw value_error(where + ": parameter " + target.name + " holds " + it->second.scalar + ", the model " +
                        std::string(scalar_name<T>()));
    if (!(it->second.extents == target.tensor.shape()))
      throw value_error(where + ": parameter " + target.name + " has shape " + it->second.extents.to_string() +
                        " in the file and " + target.tensor.shape().to_string() + " in the model");
    for (const double v : it->second.values)
      if (!detail::holds_exactly<T>(v))
        throw value_error(where + ": parameter " + target.name + " holds " + detail::hexfloat(v) + ", which " +
                          std::string(scalar_name<T>()) + " cannot hold exactly; the file was not written by save");
  };
  for (const NamedParameter<double>& target : doubles) check(target);
  for (const NamedParameter<float>& target : floats) check(target);
  if (stored.size() != doubles.size() + floats.size())
    for (const auto& entry : stored) {
      const std::string& name = entry.first;
      const auto named = [&](const auto& target) { return target.name == name; };
      if (std::none_of(doubles.begin(), doubles.end(), named) && std::none_of(floats.begin(), floats.end(), named))
        throw value_error(where + ": the file's parameter " + name + " is not in the model");
    }
  // Everything that can throw before the first parameter is counted as written: the destinations' memory, and every
  // deferred value, a parameter's own (a computed tensor in the model) or one that reads a parameter (computed before
  // it changes), checked under DetectAnomalyGuard.
  const NoGradGuard unrecorded;
  const auto settle = [](auto& target) {
    (void)target.tensor.data();
    target.tensor.impl()->storage->settle_readers();
  };
  for (NamedParameter<double>& target : doubles) settle(target);
  for (NamedParameter<float>& target : floats) settle(target);
  const auto destinations_of = []<std::floating_point T>(std::vector<NamedParameter<T>>& targets) {
    std::vector<Eigen::Map<fusegrad::detail::array_t<T>>> destinations;
    destinations.reserve(targets.size());
    for (NamedParameter<T>& target : targets) destinations.push_back(target.tensor.mutable_eigen());
    return destinations;
  };
  auto double_destinations = destinations_of(doubles);
  auto float_destinations = destinations_of(floats);
  const auto copy = [&]<std::floating_point T>(const std::vector<NamedParameter<T>>& targets,
                                               std::vector<Eigen::Map<fusegrad::detail::array_t<T>>>& destinations) {
    for (std::size_t k = 0; k < targets.size(); ++k) {
      const std::vector<double>& values = stored.at(targets[k].name).values;
      for (std::size_t i = 0; i < values.size(); ++i) destinations[k][Eigen::Index(i)] = detail::narrowed<T>(values[i]);
    }
  };
  copy(doubles, double_destinations);
  copy(floats, float_destinations);
}

}  // namespace fusegrad::nn
