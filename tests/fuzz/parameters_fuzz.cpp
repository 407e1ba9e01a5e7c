// fuzz/parameters_fuzz.cpp -- nn::load's parameters files: any bytes as the file of a small model. A file that is
// not a parameters file of this model must be refused with a fusegrad:: error that leaves every parameter as it
// was; a file that loads must say exactly what the model now holds (saved again and loaded into a fresh model, every
// value comes back bit for bit, NaN as NaN).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <boost/hana/define_struct.hpp>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/nn.hpp>

#include "fuzz/fuzz_input.hpp"

namespace fg = fusegrad;
namespace nn = fusegrad::nn;

namespace parameters_fuzz {

// Parameters layer.weight (3, 2), layer.bias (3) and scale (2).
struct Model {
  BOOST_HANA_DEFINE_STRUCT(Model, (nn::Linear, layer), (fg::Tensor, scale));
};

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

Model make_model() { return Model{nn::Linear(2, 3, 1), fg::Tensor::full({2}, 0.5).requires_grad_()}; }

// Every parameter's values, as bits.
std::vector<std::uint64_t> bits_of(Model& model) {
  std::vector<std::uint64_t> bits;
  for (const fg::Tensor& p : nn::parameters(model))
    for (std::size_t i = 0; i < p.numel(); ++i) {
      std::uint64_t b = 0;
      std::memcpy(&b, &p.data()[i], sizeof b);
      bits.push_back(b);
    }
  return bits;
}

bool same_values(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double x = 0, y = 0;
    std::memcpy(&x, &a[i], sizeof x);
    std::memcpy(&y, &b[i], sizeof y);
    if (a[i] != b[i] && !(std::isnan(x) && std::isnan(y))) return false;
  }
  return true;
}

}  // namespace

}  // namespace parameters_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace parameters_fuzz;
  // nn::load reads a file: one per process, written anew for each input.
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("fusegrad_parameters_fuzz_" + std::to_string(::getpid()));
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    check(bool(out));
  }
  Model model = make_model();
  const std::vector<std::uint64_t> before = bits_of(model);
  bool loaded = false;
  fg::fuzz::run_guarded([&] {
    nn::load(model, file);
    loaded = true;
  });
  if (!loaded) {
    check(bits_of(model) == before);
    return 0;
  }
  nn::save(model, file);
  Model again = make_model();
  nn::load(again, file);
  check(same_values(bits_of(again), bits_of(model)));
  return 0;
}
