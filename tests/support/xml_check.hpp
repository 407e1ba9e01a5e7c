// support/xml_check.hpp -- xml_error: whether a text is well-formed XML (what an SVG must be), and if not, why.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusegrad::test {

/// Empty when `xml` is one well-formed element (after an optional declaration, comments and a
/// DOCTYPE): every tag closed in order, attributes quoted, nothing but space around it.
/// Otherwise what is wrong and where.
inline std::optional<std::string> xml_error(std::string_view xml) {
  std::vector<std::string> open;
  bool root_seen = false;
  std::size_t at = 0;
  const auto fail = [&](const std::string& what) { return what + " at offset " + std::to_string(at); };
  const auto skip_to = [&](std::string_view end) {
    const std::size_t found = xml.find(end, at);
    if (found == std::string_view::npos) return false;
    at = found + end.size();
    return true;
  };
  while (at < xml.size()) {
    if (xml[at] != '<') {
      if (open.empty() && xml[at] != ' ' && xml[at] != '\n' && xml[at] != '\r' && xml[at] != '\t')
        return fail("text outside the root element");
      ++at;
      continue;
    }
    if (xml.substr(at, 4) == "<!--") {
      if (!skip_to("-->")) return fail("an unclosed comment");
    } else if (xml.substr(at, 2) == "<?") {
      if (!skip_to("?>")) return fail("an unclosed declaration");
    } else if (xml.substr(at, 9) == "<![CDATA[") {
      if (!skip_to("]]>")) return fail("an unclosed CDATA section");
    } else if (xml.substr(at, 2) == "<!") {
      if (!skip_to(">")) return fail("an unclosed DOCTYPE");
    } else if (xml.substr(at, 2) == "</") {
      const std::size_t end = xml.find('>', at);
      if (end == std::string_view::npos) return fail("an unclosed end tag");
      std::string name(xml.substr(at + 2, end - at - 2));
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (open.empty() || open.back() != name) return fail("</" + name + "> closes nothing open");
      open.pop_back();
      at = end + 1;
    } else {
      if (open.empty() && root_seen) return fail("a second root element");
      std::size_t i = at + 1;
      while (i < xml.size() && xml[i] != ' ' && xml[i] != '>' && xml[i] != '/' && xml[i] != '\n') ++i;
      const std::string name(xml.substr(at + 1, i - at - 1));
      if (name.empty()) return fail("a tag without a name");
      char quote = 0;
      for (; i < xml.size(); ++i) {
        if (quote) {
          if (xml[i] == quote) quote = 0;
        } else if (xml[i] == '"' || xml[i] == '\'') {
          quote = xml[i];
        } else if (xml[i] == '<') {
          return fail("'<' inside the tag <" + name + ">");
        } else if (xml[i] == '>') {
          break;
        }
      }
      if (i == xml.size()) return fail("an unclosed tag <" + name + ">");
      if (xml[i - 1] != '/') open.push_back(name);
      root_seen = true;
      at = i + 1;
    }
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  if (!root_seen) return std::string("no element");
  return std::nullopt;
}

}  // namespace fusegrad::test
