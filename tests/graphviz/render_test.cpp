// graphviz/render_test.cpp -- fg::render: SVG, PNG and PDF through Graphviz's dot, the errors when it is missing or
// fails, and the pictures examples/graphs.cpp writes.
#include <unistd.h>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/graphviz.hpp>

#include "support/expect_error.hpp"
#include "support/xml_check.hpp"

namespace {

namespace fg = fusegrad;
namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool dot_installed() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((fs::path(dir) / "dot").c_str(), X_OK) == 0) return true;
  return false;
}

// A fresh directory under the system's temporary one, removed at the end.
class RenderTest : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("fusegrad_render_" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }

  static std::string picture() {
    const fg::Tensor w = fg::Tensor::full({1}, 0.5).requires_grad_().name("w <weights> & \"more\"");
    const fg::Tensor loss = fg::mean(fg::square(w * 2.0 - 1.0));
    return fg::to_dot(loss);
  }
};

// Sets PATH for the scope of a test, then puts it back.
class PathFor {
 public:
  explicit PathFor(const std::string& value) : old_(std::getenv("PATH") ? std::getenv("PATH") : "") {
    ::setenv("PATH", value.c_str(), 1);
  }
  ~PathFor() { ::setenv("PATH", old_.c_str(), 1); }
  PathFor(const PathFor&) = delete;
  PathFor& operator=(const PathFor&) = delete;

 private:
  std::string old_;
};

TEST_F(RenderTest, WritesSvgThatParsesAsXml) {
  if (!dot_installed()) GTEST_SKIP() << "Graphviz's dot is not installed";
  fg::render(picture(), dir / "loss.svg");
  const std::string svg = read_file(dir / "loss.svg");
  EXPECT_EQ(fg::test::xml_error(svg), std::nullopt);
  EXPECT_NE(svg.find("MulBackward"), std::string::npos);
  EXPECT_NE(svg.find("w &lt;weights&gt; &amp; &quot;more&quot;"), std::string::npos) << "names reach the picture";
}

// Graphviz reads entities in a label (&lt; as <): a name that holds one is drawn as written, its & escaped in the SVG.
TEST_F(RenderTest, NamesThatLookLikeEntitiesAreDrawnAsWritten) {
  if (!dot_installed()) GTEST_SKIP() << "Graphviz's dot is not installed";
  const fg::Tensor w = fg::Tensor::full({1}, 0.5).requires_grad_().name("x&lt;y &amp; &#65;");
  fg::render(fg::to_dot(fg::sum(w * w)), dir / "entities.svg");
  const std::string svg = read_file(dir / "entities.svg");
  EXPECT_EQ(fg::test::xml_error(svg), std::nullopt);
  EXPECT_NE(svg.find("x&amp;lt;y &amp;amp; &amp;#65;"), std::string::npos) << svg;
}

TEST_F(RenderTest, WritesPngAndPdf) {
  if (!dot_installed()) GTEST_SKIP() << "Graphviz's dot is not installed";
  fg::render(picture(), dir / "loss.png");
  fg::render(picture(), dir / "loss.pdf");
  EXPECT_EQ(read_file(dir / "loss.png").substr(1, 3), "PNG");
  EXPECT_EQ(read_file(dir / "loss.pdf").substr(0, 5), "%PDF-");
}

TEST_F(RenderTest, AnotherExtensionIsAValueError) {
  fg::test::expect_error<fg::value_error>([&] { fg::render(picture(), dir / "loss.jpeg"); },
                                          {"loss.jpeg", ".svg, .png or .pdf"});
  EXPECT_FALSE(fs::exists(dir / "loss.jpeg"));
}

TEST_F(RenderTest, WithoutGraphvizItSaysWhatToInstall) {
  const PathFor no_graphviz((dir / "empty").string());
  fg::test::expect_error<fg::error>([&] { fg::render(picture(), dir / "loss.svg"); },
                                    {"Graphviz", "not installed", "apt-get install graphviz"});
  EXPECT_FALSE(fs::exists(dir / "loss.svg"));
}

TEST_F(RenderTest, WhatDotSaysWhenItFailsIsInTheError) {
  if (!dot_installed()) GTEST_SKIP() << "Graphviz's dot is not installed";
  fg::test::expect_error<fg::error>([&] { fg::render("digraph { a -> }", dir / "broken.svg"); },
                                    {"dot -Tsvg", "broken.svg", "syntax error"});
}

TEST_F(RenderTest, EmptyTextIsAValueError) {
  fg::test::expect_error<fg::value_error>([&] { fg::render(" \n", dir / "empty.svg"); },
                                          {"empty.svg", "DOT text is empty", "fg::to_dot"});
}

TEST_F(RenderTest, ADotThatCannotRunSaysWhatToCheck) {
  fs::create_directories(dir / "fake");
  std::ofstream(dir / "fake" / "dot") << "not a program\n";
  fs::permissions(dir / "fake" / "dot", fs::perms::owner_read | fs::perms::owner_write);
  const PathFor fake((dir / "fake").string());
  fg::test::expect_error<fg::error>([&] { fg::render(picture(), dir / "loss.svg"); },
                                    {"could not run `dot`", "executable", "command -v dot"});
}

// SIGCHLD ignored for the scope of a test, then as it was.
class IgnoringSigchld {
 public:
  IgnoringSigchld() : previous_(std::signal(SIGCHLD, SIG_IGN)) {}
  ~IgnoringSigchld() { std::signal(SIGCHLD, previous_); }
  IgnoringSigchld(const IgnoringSigchld&) = delete;
  IgnoringSigchld& operator=(const IgnoringSigchld&) = delete;

 private:
  void (*previous_)(int);
};

// A process that ignores SIGCHLD cannot learn dot's exit status: the file dot wrote says it succeeded.
TEST_F(RenderTest, WritesWhereSigchldIsIgnored) {
  if (!dot_installed()) GTEST_SKIP() << "Graphviz's dot is not installed";
  const IgnoringSigchld ignoring;
  fg::render(picture(), dir / "loss.svg");
  fg::test::expect_error<fg::error>([&] { fg::render("digraph { a -> }", dir / "broken.svg"); },
                                    {"broken.svg", "SIGCHLD", "syntax error"});
  EXPECT_EQ(fg::test::xml_error(read_file(dir / "loss.svg")), std::nullopt);
}

// The pictures examples/graphs.cpp wrote, when ctest runs it first (example.graphs.svg sets
// FUSEGRAD_GRAPHS_DIR): every one is there and every SVG parses as XML.
TEST(ExampleGraphs, EveryPictureIsWrittenAndEverySvgParses) {
  const char* dir = std::getenv("FUSEGRAD_GRAPHS_DIR");
  if (!dir) GTEST_SKIP() << "run by the ctest test example.graphs.svg, after examples/graphs.cpp";
  for (const char* name : {"tutorial_loss", "tutorial_no_b", "tutorial_branch", "fused", "taped", "expression"}) {
    const fs::path dot = fs::path(dir) / (std::string(name) + ".dot");
    EXPECT_TRUE(fs::exists(dot)) << dot;
    if (!dot_installed()) continue;
    const fs::path svg = fs::path(dir) / (std::string(name) + ".svg");
    ASSERT_TRUE(fs::exists(svg)) << svg;
    EXPECT_EQ(fg::test::xml_error(read_file(svg)), std::nullopt) << svg;
  }
}

}  // namespace
