#include "kioku/sdk/match_key.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>
#include <unicode/uvernum.h>

#include "kioku/sdk/text.hpp"
#include "kioku/sdk/tool.hpp"
#include "utf8_internal.hpp"

// The versioned name ICU exports a C function under ("unorm2_normalize_72"): its headers
// rename every entry point to the version they belong to (uvernum.h U_ICU_ENTRY_POINT_RENAME).
#define KIOKU_ICU_SYMBOL_STR(x) #x
#define KIOKU_ICU_SYMBOL(x) KIOKU_ICU_SYMBOL_STR(x)

namespace kioku::sdk {
namespace {

std::string AsciiLowerFallback(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = detail::LowerAscii(c);
  return out;
}

// ASCII alone: NFKC_Casefold maps A-Z to a-z and leaves every other ASCII character as it
// is (none is default-ignorable or has a compatibility mapping), and the ASCII white space
// of u_isUWhiteSpace is U+0009..U+000D and U+0020. Two thirds of a batch write's MatchKey
// time went to building ICU strings for text that is ASCII throughout.
bool IsAsciiWhiteSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

std::string AsciiMatchKey(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;
  for (const char c : text) {
    if (IsAsciiWhiteSpace(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += detail::LowerAscii(c);
  }
  return out;
}

// ICU's common library, opened the first time a key needs it (non-ASCII text): linked, it
// was loaded into every process that loads a plugin using the SDK, ~1.2 ms of each one-shot
// hook or `kioku call` (dlopen of libicuuc and its 30 MB data library), for text that is
// almost always ASCII. Through its C API, whose entry points are plain versioned symbols.
struct Icu {
  std::string problem;  ///< why ICU cannot be used; "" when it loaded
  decltype(&unorm2_normalize) normalize = nullptr;
  decltype(&u_strFromUTF8) from_utf8 = nullptr;
  decltype(&u_strToUTF8) to_utf8 = nullptr;
  decltype(&u_isUWhiteSpace) is_white_space = nullptr;
  const UNormalizer2* nfkc_cf = nullptr;
};

template <typename F>
bool Resolve(void* library, F& function, const char* name) {
  function = reinterpret_cast<F>(::dlsym(library, name));
  return function != nullptr;
}

const Icu& LoadIcu() {
  static const Icu icu = [] {
    Icu loaded;
    // Never closed: the normalizer instance lives in the library until the process ends.
    void* library = ::dlopen(UnicodeLibraryName(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = ::dlerror();
      loaded.problem = why != nullptr ? why : std::string("cannot load ") + UnicodeLibraryName();
      return loaded;
    }
    decltype(&unorm2_getNFKCCasefoldInstance) instance = nullptr;
    if (!Resolve(library, instance, KIOKU_ICU_SYMBOL(unorm2_getNFKCCasefoldInstance)) ||
        !Resolve(library, loaded.normalize, KIOKU_ICU_SYMBOL(unorm2_normalize)) ||
        !Resolve(library, loaded.from_utf8, KIOKU_ICU_SYMBOL(u_strFromUTF8)) ||
        !Resolve(library, loaded.to_utf8, KIOKU_ICU_SYMBOL(u_strToUTF8)) ||
        !Resolve(library, loaded.is_white_space, KIOKU_ICU_SYMBOL(u_isUWhiteSpace))) {
      loaded.problem = std::string(UnicodeLibraryName()) + " lacks the functions of ICU " U_ICU_VERSION;
      return loaded;
    }
    UErrorCode status = U_ZERO_ERROR;
    loaded.nfkc_cf = instance(&status);
    if (U_FAILURE(status) || loaded.nfkc_cf == nullptr) {
      loaded.problem = "ICU's NFKC_Casefold data cannot be loaded (UErrorCode " + std::to_string(status) + ")";
    }
    return loaded;
  }();
  return icu;
}

// NFKC_Casefold of valid UTF-8, as UTF-16 in `out`; false on an ICU error.
bool Fold(const Icu& icu, std::string_view utf8, std::vector<UChar>& out) {
  UErrorCode status = U_ZERO_ERROR;
  std::vector<UChar> source(utf8.size() + 1);  // UTF-16 units never outnumber UTF-8 bytes
  int32_t source_length = 0;
  icu.from_utf8(source.data(), static_cast<int32_t>(source.size()), &source_length, utf8.data(),
                static_cast<int32_t>(utf8.size()), &status);
  if (U_FAILURE(status)) return false;
  // NFKC expands some code points many times over (U+FDFA: 18 units): ask again at the
  // length ICU reports.
  out.resize(static_cast<std::size_t>(source_length) * 2 + 16);
  int32_t length = icu.normalize(icu.nfkc_cf, source.data(), source_length, out.data(),
                                 static_cast<int32_t>(out.size()), &status);
  if (status == U_BUFFER_OVERFLOW_ERROR) {
    status = U_ZERO_ERROR;
    out.resize(static_cast<std::size_t>(length));
    length = icu.normalize(icu.nfkc_cf, source.data(), source_length, out.data(), length, &status);
  }
  if (U_FAILURE(status)) return false;
  out.resize(static_cast<std::size_t>(length));
  return true;
}

}  // namespace

const char* UnicodeLibraryName() { return "libicuuc.so." U_ICU_VERSION_SHORT; }

std::string UnicodeMatchKeysProblem() { return LoadIcu().problem; }

std::string MatchKey(std::string_view text) {
  if (detail::AsciiRunEnd(text, 0) == text.size()) {
    return AsciiMatchKey(text);
  }
  const std::string clean = IsValidUtf8(text) ? std::string(text) : SanitizeUtf8(text);
  const Icu& icu = LoadIcu();
  if (!icu.problem.empty()) {
    // A key made without ICU would not match the keys stored with it: the text's memory,
    // tag or entity would split from its equals for good. Refused instead, nothing written:
    // a ToolError, since the message says what is wrong and how to fix it (not a bug here).
    throw ToolError("matching non-ASCII text needs ICU, which cannot be used: " + icu.problem +
                    " (Debian package libicu" U_ICU_VERSION_SHORT "; `kioku doctor` checks it)");
  }
  std::vector<UChar> folded;
  if (!Fold(icu, clean, folded)) return AsciiLowerFallback(clean);

  // Collapse Unicode white space runs to one ASCII space; trim both ends.
  std::vector<UChar> collapsed;
  collapsed.reserve(folded.size());
  bool pending_space = false;
  const auto length = static_cast<int32_t>(folded.size());
  for (int32_t i = 0; i < length;) {
    const int32_t start = i;
    UChar32 cp = 0;
    U16_NEXT(folded.data(), i, length, cp);
    if (icu.is_white_space(cp)) {
      pending_space = !collapsed.empty();
      continue;
    }
    if (pending_space) collapsed.push_back(u' ');
    pending_space = false;
    collapsed.insert(collapsed.end(), folded.begin() + start, folded.begin() + i);
  }
  UErrorCode status = U_ZERO_ERROR;
  std::string out(collapsed.size() * 3, '\0');  // a UTF-16 unit is at most 3 UTF-8 bytes
  int32_t out_length = 0;
  icu.to_utf8(out.data(), static_cast<int32_t>(out.size()), &out_length, collapsed.data(),
              static_cast<int32_t>(collapsed.size()), &status);
  if (U_FAILURE(status)) return AsciiLowerFallback(clean);
  out.resize(static_cast<std::size_t>(out_length));
  return out;
}

}  // namespace kioku::sdk
