// The command lines of the native training tools (train_cli.cpp, reader_cli.cpp): every flag takes one
// value (`--name value`) and is bound to the variable it sets, so a tool lists its flags once and the
// reading (numbers as atoi/strtof read them, "1" for true, the two messages) is written here once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace abh::train {

class CliFlags {
 public:
  CliFlags& add(std::string name, std::function<void(const std::string&)> set) {
    flags_.emplace_back(std::move(name), std::move(set));
    return *this;
  }
  CliFlags& add(std::string name, int& target) {
    return add(std::move(name), [&target](const std::string& v) { target = std::atoi(v.c_str()); });
  }
  CliFlags& add(std::string name, float& target) {
    return add(std::move(name), [&target](const std::string& v) { target = std::strtof(v.c_str(), nullptr); });
  }
  CliFlags& add(std::string name, std::uint32_t& target) {
    return add(std::move(name),
               [&target](const std::string& v) { target = std::uint32_t(std::strtoul(v.c_str(), nullptr, 10)); });
  }
  /** A switch: "1" turns it on, anything else off. */
  CliFlags& add(std::string name, bool& target) {
    return add(std::move(name), [&target](const std::string& v) { target = v == "1"; });
  }
  CliFlags& add(std::string name, std::string& target) {
    return add(std::move(name), [&target](const std::string& v) { target = v; });
  }

  /** Sets every flag given in argv; false (having said why on stderr) for a missing value or an unknown flag. */
  bool parse(int argc, char** argv) const {
    for (int i = 1; i < argc; ++i) {
      const std::string flag = argv[i];
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value after %s\n", flag.c_str());
        return false;
      }
      const std::string value = argv[++i];
      const auto known = std::find_if(flags_.begin(), flags_.end(), [&flag](const auto& f) { return f.first == flag; });
      if (known == flags_.end()) {
        std::fprintf(stderr, "unknown option %s\n", flag.c_str());
        return false;
      }
      known->second(value);
    }
    return true;
  }

 private:
  std::vector<std::pair<std::string, std::function<void(const std::string&)>>> flags_;
};

}  // namespace abh::train
