// A small streaming JSON writer: nested objects and arrays, commas and indentation handled,
// strings escaped, non-finite numbers written as null (JSON has no NaN or infinity).  Enough
// for hetccl-info's document without a dependency.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hetccl_info {

class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  // The name of the next value inside an object.
  JsonWriter& key(const std::string& name);
  JsonWriter& value(const std::string& text);
  JsonWriter& value(const char* text);
  JsonWriter& value(long long number);
  JsonWriter& value(int number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(size_t number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(double number);
  JsonWriter& value(bool flag);
  JsonWriter& null();
  // The document, ending in a newline.
  std::string str() const { return out_ + "\n"; }

 private:
  void beforeValue();
  void open(char bracket);
  void close(char bracket);
  void newline();

  struct Level {
    bool empty = true;
  };
  std::string out_;
  std::vector<Level> levels_;
  bool afterKey_ = false;
};

}  // namespace hetccl_info
