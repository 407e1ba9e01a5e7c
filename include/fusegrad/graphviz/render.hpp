// graphviz/render.hpp -- fg::render: a DOT picture to SVG, PNG or PDF with Graphviz's `dot`, run without a shell.
#pragma once

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fusegrad/error.hpp>

namespace fusegrad {

namespace detail {

// Closes a file descriptor when it goes.
class owned_fd {
 public:
  owned_fd() = default;
  explicit owned_fd(int fd) noexcept : fd_(fd) {}
  owned_fd(const owned_fd&) = delete;
  owned_fd& operator=(const owned_fd&) = delete;
  ~owned_fd() { reset(); }
  [[nodiscard]] int get() const noexcept { return fd_; }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

inline std::string render_format(const std::filesystem::path& path) {
  const std::string extension = path.extension().string();
  for (const std::string_view format : {"svg", "png", "pdf"})
    if (extension.size() == format.size() + 1 && extension.substr(1) == format) return std::string(format);
  throw value_error("fusegrad::render(dot, \"" + path.string() +
                    "\"): the file name ends in .svg, .png or .pdf, which says what to write");
}

// Reaps a spawned child however the caller leaves: no zombie process is left behind.
class spawned_child {
 public:
  explicit spawned_child(pid_t pid) noexcept : pid_(pid) {}
  spawned_child(const spawned_child&) = delete;
  spawned_child& operator=(const spawned_child&) = delete;
  ~spawned_child() {
    if (pid_ > 0) wait();
  }
  // The child's exit status; -1 when it could not be waited for (SIGCHLD ignored, say).
  int wait() noexcept {
    int status = 0;
    pid_t done;
    while ((done = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return done < 0 ? -1 : status;
  }

 private:
  pid_t pid_;
};

}  // namespace detail

/// Writes the DOT picture `dot` (fg::to_dot) to `path` as SVG, PNG or PDF (by the path's
/// extension) with Graphviz's `dot` program, found on PATH and given its arguments directly: no
/// shell reads the path. Throws fusegrad::error when Graphviz is not installed (Debian:
/// `apt-get install graphviz`) or `dot` fails (with what it printed), value_error for another
/// extension or empty DOT text.
inline void render(std::string_view dot, const std::filesystem::path& path) {
  const std::string format = detail::render_format(path);
  if (dot.find_first_not_of(" \t\r\n") == std::string_view::npos)  // dot writes no file for it, and says nothing
    throw value_error("fusegrad::render(dot, \"" + path.string() +
                      "\"): the DOT text is empty; make it with fg::to_dot(tensor or expression)");
  // The picture goes in through a socket, not a pipe: sent with MSG_NOSIGNAL, a `dot` that stops
  // reading makes the send fail instead of raising SIGPIPE in the caller's process.
  int input[2], errors[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input) != 0)
    throw error("fusegrad::render: socketpair failed: " + std::string(std::strerror(errno)));
  detail::owned_fd input_read(input[0]), input_write(input[1]);
  if (::pipe2(errors, O_CLOEXEC) != 0)
    throw error("fusegrad::render: pipe failed: " + std::string(std::strerror(errno)));
  detail::owned_fd errors_read(errors[0]), errors_write(errors[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input_read.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, errors_write.get(), STDERR_FILENO);
  std::string type_argument = "-T" + format, output_argument = "-o" + path.string();
  std::error_code absent;
  const auto before = std::filesystem::last_write_time(path, absent);  // to tell a file dot wrote from an old one
  char program[] = "dot";
  std::vector<char*> argv{program, type_argument.data(), output_argument.data(), nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, "dot", &actions, nullptr, argv.data(), ::environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == ENOENT)
    throw error(
        "fusegrad::render: Graphviz's `dot` program is not installed (not found on PATH); install Graphviz "
        "(Debian, Ubuntu: apt-get install graphviz), or render the DOT text elsewhere");
  if (spawned != 0)
    throw error("fusegrad::render: could not run `dot`: " + std::string(std::strerror(spawned)) +
                "; the `dot` found on PATH must be Graphviz's program, executable by this user (`command -v dot`; "
                "Debian, Ubuntu: apt-get install --reinstall graphviz)");
  detail::spawned_child child(pid);
  input_read.reset();
  errors_write.reset();

  // The picture goes in while what dot prints comes out, so that neither side waits for the
  // other with a full buffer.
  std::string messages;
  std::size_t written = 0;
  while (input_write.get() >= 0 || errors_read.get() >= 0) {
    pollfd fds[2] = {{input_write.get(), POLLOUT, 0}, {errors_read.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      throw error("fusegrad::render: poll failed: " + std::string(std::strerror(errno)));
    }
    if (fds[0].revents) {
      const ssize_t n =
          ::send(input_write.get(), dot.data() + written, dot.size() - written, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) written += std::size_t(n);
      if ((n < 0 && errno != EINTR && errno != EAGAIN) || written == dot.size())
        input_write.reset();  // all sent, or dot stopped reading: its status and messages say why
    }
    if (fds[1].revents) {
      char buffer[4096];
      const ssize_t n = ::read(errors_read.get(), buffer, sizeof buffer);
      if (n > 0)
        messages.append(buffer, std::size_t(n));
      else if (n == 0 || errno != EINTR)
        errors_read.reset();
    }
  }
  const int status = child.wait();
  if (status < 0) {  // not waited for (SIGCHLD ignored): dot has finished, and the file says whether it wrote
    std::error_code failed;
    const bool wrote_file = std::filesystem::file_size(path, failed) > 0 && !failed &&
                            std::filesystem::last_write_time(path, failed) != before && !failed;
    if (wrote_file) return;  // what dot printed beside it was a warning
    throw error("fusegrad::render: `dot -T" + format + "` wrote no \"" + path.string() + "\" (its exit status is " +
                "unknown: this process ignores SIGCHLD)" + (messages.empty() ? std::string() : ": " + messages));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw error("fusegrad::render: `dot -T" + format + "` failed writing \"" + path.string() +
                "\": " + (messages.empty() ? std::string("no message") : messages));
}

}  // namespace fusegrad
