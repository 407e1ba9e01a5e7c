// ops/ops_list_test.cpp -- ops.hpp's lists name every header in include/fusegrad/ops/, and every op has a gradient
// test.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <boost/mp11/algorithm.hpp>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;

// Headers of include/fusegrad/ops/ that define no op of their own: shared helpers (matrix_view,
// reduction_axes, extremum: max and min's common rule; indices: what index_select and gather
// read) and functions composed of ops (softmax).
const std::set<std::string> helper_headers = {"matrix_view", "reduction_axes", "extremum", "indices", "softmax"};

// The header an op lives in: its name, unless it says otherwise (flatten in reshape.hpp, the
// comparisons in compare.hpp).
template <class Op>
std::string header_of() {
  if constexpr (requires { Op::header; })
    return std::string(Op::header);
  else
    return std::string(Op::name);
}

// The repository root: FUSEGRAD_SOURCE_DIR when the build defines it, else three levels above this file.
std::filesystem::path source_dir() {
#ifdef FUSEGRAD_SOURCE_DIR
  return FUSEGRAD_SOURCE_DIR;
#else
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
#endif
}

std::set<std::string> listed_op_names() {
  std::set<std::string> names;
  auto add = [&](auto op) { names.insert(std::string(decltype(op)::name)); };
  boost::mp11::mp_for_each<fg::unary_ops>(add);
  boost::mp11::mp_for_each<fg::binary_ops>(add);
  boost::mp11::mp_for_each<fg::materialized_ops>(add);
  return names;
}

std::set<std::string> listed_op_headers() {
  std::set<std::string> headers;
  auto add = [&](auto op) { headers.insert(header_of<decltype(op)>()); };
  boost::mp11::mp_for_each<fg::unary_ops>(add);
  boost::mp11::mp_for_each<fg::binary_ops>(add);
  boost::mp11::mp_for_each<fg::materialized_ops>(add);
  return headers;
}

std::set<std::string> op_headers() {
  const std::filesystem::path dir = source_dir() / "include" / "fusegrad" / "ops";
  std::set<std::string> stems;
  if (!std::filesystem::is_directory(dir)) {
    ADD_FAILURE() << dir << " is not a directory: cannot list the op headers";
    return stems;
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".hpp" && !helper_headers.contains(entry.path().stem().string()))
      stems.insert(entry.path().stem().string());
  return stems;
}

// Every op header defines an op listed in ops.hpp; every listed op has its header.
TEST(OpsList, EveryOpHeaderIsListedAndEveryListedOpHasAHeader) {
  const std::set<std::string> listed = listed_op_headers();
  const std::set<std::string> headers = op_headers();
  for (const auto& h : headers)
    EXPECT_TRUE(listed.contains(h)) << "include/fusegrad/ops/" << h
                                    << ".hpp is in no list of ops.hpp (unary_ops, binary_ops, materialized_ops)";
  for (const auto& op : listed)
    EXPECT_TRUE(headers.contains(op)) << "ops.hpp lists an op of include/fusegrad/ops/" << op
                                      << ".hpp, which does not exist";
}

// The lists hold no op twice.
TEST(OpsList, NoOpIsListedTwice) {
  const std::size_t count = boost::mp11::mp_size<fg::unary_ops>::value + boost::mp11::mp_size<fg::binary_ops>::value +
                            boost::mp11::mp_size<fg::materialized_ops>::value;
  EXPECT_EQ(listed_op_names().size(), count);
}

// Every op has a gradient test in this executable named after it: "log1p" -> a test named Log1p.
TEST(OpsList, EveryOpHasATestNamedAfterIt) {
  std::set<std::string> test_names;
  const auto& unit = *::testing::UnitTest::GetInstance();
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const auto& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) test_names.insert(suite.GetTestInfo(t)->name());
  }
  for (std::string op : listed_op_names()) {
    op[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(op[0])));
    EXPECT_TRUE(test_names.contains(op)) << "no test named " << op << " in tests/ops";
  }
}

}  // namespace
