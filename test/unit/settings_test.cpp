// Settings: the table of every variable (base/settings_table.h), its typed readers with their
// errors, the per-rank lists, and core's assembly of a communicator's settings (defaults,
// environment over defaults, config over environment).  Every test starts from an
// environment without any of the table's variables, whatever the caller has set.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/byte_size.h"
#include "base/rank_list.h"
#include "base/settings_markdown.h"
#include "base/settings_reader.h"
#include "core/emulation.h"
#include "core/settings.h"
#include "core/settings_bindings.h"
#include "transport/mpi_transport.h"

namespace hetccl {
namespace {

// Sets (or, with nullptr, unsets) an environment variable for one scope and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      hadOld_ = true;
      old_ = old;
    }
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { hadOld_ ? setenv(name_.c_str(), old_.c_str(), 1) : unsetenv(name_.c_str()); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  bool hadOld_ = false;
  std::string old_;
};

// Unsets every variable of the settings table for the test's duration (and restores them
// after), so that a caller's HETCCL_* or launcher variables cannot change what a test sees.
class SettingsTest : public ::testing::Test {
 protected:
  SettingsTest() {
    for (const SettingSpec& spec : settingsTable()) cleared_.emplace_back(new ScopedEnv(spec.name, nullptr));
  }
  ~SettingsTest() override {
    for (auto it = cleared_.rbegin(); it != cleared_.rend(); ++it) delete *it;
  }

 private:
  std::vector<ScopedEnv*> cleared_;
};

Status checkAll() { return checkSettingsEnvironment(handedInSettingChoices()); }

// A field's value as hetccl-info shows it (one spelling, whatever was typed).
std::string shown(const SettingBinding& binding, const SettingValues& values) {
  const SettingSpec& spec = settingSpec(binding.id);
  return settingValueText(spec, choicesOf(spec, handedInSettingChoices()), binding.value(values));
}

// How many fields an aggregate has: the most initialisers `T{...}` takes, each an AnyField
// (which converts to any field's type, so that none is taken by brace elision).
struct AnyField {
  template <typename T>
  operator T() const;  // only named in unevaluated braces, never called
};
template <typename T, typename Indices, typename = void>
struct TakesInitialisers : std::false_type {};
template <typename T, size_t... I>
struct TakesInitialisers<T, std::index_sequence<I...>, std::void_t<decltype(T{(void(I), AnyField{})...})>>
    : std::true_type {};
template <typename T, size_t N = 0>
constexpr size_t fieldCount() {
  if constexpr (TakesInitialisers<T, std::make_index_sequence<N + 1>>::value)
    return fieldCount<T, N + 1>();
  else
    return N;
}

// ---- the table ---------------------------------------------------------------------------

TEST_F(SettingsTest, TableIsInIdOrderWithUniqueNamesAndHelp) {
  std::set<std::string> names;
  const auto& table = settingsTable();
  ASSERT_EQ(table.size(), static_cast<size_t>(SettingId::Count));
  for (size_t i = 0; i < table.size(); ++i) {
    const SettingSpec& spec = table[i];
    EXPECT_EQ(static_cast<size_t>(spec.id), i) << spec.name;
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name << " twice";
    EXPECT_NE(std::string(spec.help), "") << spec.name;
    if (spec.section == SettingSection::Hetccl) {
      EXPECT_EQ(std::string(spec.name).rfind("HETCCL_", 0), 0u) << spec.name;
    }
    if (spec.kind == SettingKind::Enum) {
      EXPECT_FALSE(choicesOf(spec, handedInSettingChoices()).empty()) << spec.name << " has no choices";
    }
  }
}

TEST_F(SettingsTest, EveryDefaultIsAcceptedByItsOwnReader) {
  // With nothing set, every reader parses the table's own default.
  EXPECT_TRUE(checkAll().isOk()) << checkAll().message();
  for (const SettingSpec& spec : settingsTable()) {
    if (!spec.defaultValue) continue;
    ScopedEnv set(spec.name, spec.defaultValue);
    EXPECT_TRUE(checkAll().isOk()) << spec.name << "=" << spec.defaultValue << ": " << checkAll().message();
  }
}

TEST_F(SettingsTest, AlgorithmNamesComeFromTheAlgorithms) {
  const auto& choices = algorithmChoices();
  ASSERT_EQ(choices.size(), allAlgorithms().size() + 1);
  EXPECT_EQ(choices[0].name, "auto");
  for (size_t i = 0; i < allAlgorithms().size(); ++i) EXPECT_EQ(choices[i + 1].name, algorithmName(allAlgorithms()[i]));
}

// ---- the rows bound to Settings' fields ---------------------------------------------------

TEST_F(SettingsTest, EveryHetcclRowIsBoundToExactlyOneFieldAndEveryFieldToOneRow) {
  // The bindings, in the table's order, name every HETCCL_* row once and no launcher row.
  std::vector<SettingId> hetcclRows, boundRows;
  for (const SettingSpec& spec : settingsTable())
    if (spec.section == SettingSection::Hetccl) hetcclRows.push_back(spec.id);
  for (const SettingBinding& binding : settingBindings()) boundRows.push_back(binding.id);
  EXPECT_EQ(boundRows, hetcclRows) << "a HETCCL_* row without a binding (core/settings_bindings.cpp), or one twice";
  // Each binding reaches a field of its own, whose type holds the row's kind...
  const SettingValues values{};
  std::set<const void*> fields;
  for (const SettingBinding& binding : settingBindings()) {
    const SettingSpec& spec = settingSpec(binding.id);
    EXPECT_TRUE(fields.insert(binding.field(values)).second) << spec.name << " shares its field with another row";
    EXPECT_TRUE(binding.holds(spec.kind)) << spec.name << "'s field cannot hold its kind";
  }
  // ...and there is no other field: a field added to SettingValues without a row fails here.
  static_assert(std::is_aggregate_v<SettingValues>, "fieldCount counts an aggregate's fields");
  EXPECT_EQ(fieldCount<SettingValues>(), settingBindings().size())
      << "SettingValues has a field that no row of the settings table is bound to";
}

TEST_F(SettingsTest, EveryConfigFieldOverridesExactlyOneBoundSetting) {
  // hetcclConfig_t: size, magic and version, then one field per setting it can override, and
  // `blocking`, which is how one creation runs (hetcclCommInitRank), no setting.
  constexpr size_t kHeaderFields = 3 + 1;
  size_t overridden = 0;
  for (const SettingBinding& binding : settingBindings()) {
    if (!binding.config.name) continue;
    ++overridden;
    EXPECT_TRUE((binding.config.number != nullptr) != (binding.config.text != nullptr)) << binding.config.name;
  }
  EXPECT_EQ(fieldCount<hetcclConfig_t>(), kHeaderFields + overridden)
      << "a hetcclConfig_t field that overrides no setting (bind it in core/settings_bindings.cpp)";
  // Setting one config field changes its own setting's source, and no other's.
  for (const SettingBinding& binding : settingBindings()) {
    if (!binding.config.name) continue;
    hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
    const SettingSpec& spec = settingSpec(binding.id);
    if (binding.config.number) config.*binding.config.number = static_cast<int>(spec.minimum);
    if (binding.config.text) config.*binding.config.text = spec.defaultValue;
    Settings s;
    ASSERT_TRUE(loadSettings(&config, &s).isOk()) << binding.config.name << ": " << loadSettings(&config, &s).message();
    for (const SettingBinding& other : settingBindings())
      EXPECT_EQ(s.source(other.id), other.id == binding.id ? SettingSource::Config : SettingSource::Default)
          << "config." << binding.config.name << " and " << settingSpec(other.id).name;
  }
}

TEST_F(SettingsTest, DefaultsComeFromTheTable) {
  // With nothing set, every field holds its row's default exactly as the table writes it (the
  // table writes each in the one spelling hetccl-info shows), and says it is the default.
  Settings s;
  ASSERT_TRUE(loadSettings(nullptr, &s).isOk());
  for (const SettingBinding& binding : settingBindings()) {
    const SettingSpec& spec = settingSpec(binding.id);
    EXPECT_EQ(shown(binding, s), spec.defaultValue ? spec.defaultValue : "") << spec.name;
    EXPECT_EQ(s.source(binding.id), SettingSource::Default) << spec.name;
  }
  // The fields have no values of their own: zero or empty until the table's are applied.
  const SettingValues bare{};
  EXPECT_EQ(bare.pipelineDepth, 0);
  EXPECT_EQ(bare.chunkBytes, 0u);
  EXPECT_EQ(bare.timeoutSeconds, 0);
}

TEST_F(SettingsTest, EverySourceIsTrackedPerSetting) {
  // Each variable set alone (to its default's text, or to an accepted value) is the only one
  // from the environment; its value is what it says.
  for (const SettingBinding& binding : settingBindings()) {
    const SettingSpec& spec = settingSpec(binding.id);
    const char* text = spec.defaultValue ? spec.defaultValue : spec.kind == SettingKind::Integer ? "3" : "n0:2";
    ScopedEnv set(spec.name, text);
    Settings s;
    ASSERT_TRUE(loadSettings(nullptr, &s).isOk()) << spec.name << "=" << text;
    EXPECT_EQ(shown(binding, s), text) << spec.name;
    for (const SettingBinding& other : settingBindings())
      EXPECT_EQ(s.source(other.id), other.id == binding.id ? SettingSource::Environment : SettingSource::Default)
          << spec.name << " set, " << settingSpec(other.id).name;
  }
}

TEST_F(SettingsTest, AConfigOverrideIsRefusedByTheRuleThatRefusesTheVariable) {
  // The same bad value in the variable and in the config field: the same message (the same
  // rule, from the same place), but for the name it is given by.
  for (const SettingBinding& binding : settingBindings()) {
    if (!binding.config.name) continue;
    const SettingSpec& spec = settingSpec(binding.id);
    const std::string bad =
        binding.config.text ? "butterfly" : std::to_string(spec.kind == SettingKind::Bool ? 2 : spec.minimum - 1);
    std::string fromEnvironment;
    {
      ScopedEnv set(spec.name, bad.c_str());
      Settings s;
      const Status status = loadSettings(nullptr, &s);
      ASSERT_EQ(status.code(), Code::InvalidArgument) << spec.name << "=" << bad;
      fromEnvironment = status.message();
    }
    hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
    if (binding.config.number) config.*binding.config.number = std::stoi(bad);
    if (binding.config.text) config.*binding.config.text = bad.c_str();
    Settings s;
    const Status status = loadSettings(&config, &s);
    ASSERT_EQ(status.code(), Code::InvalidArgument) << binding.config.name << "=" << bad;
    std::string expected = fromEnvironment;
    const std::string variable = std::string(spec.name) + "=";
    ASSERT_NE(expected.find(variable), std::string::npos) << expected;
    expected.replace(expected.find(variable), variable.size(), std::string("config.") + binding.config.name + "=");
    EXPECT_EQ(status.message(), expected);
  }
}

// ---- every variable, good and bad values -------------------------------------------------

// "auto, ring, ..., x or y" / "`auto` (default), `ring`, ..., `y`": HETCCL_ALGO's choices as its
// messages and the markdown spell them, from the algorithm table (so that a new row needs no
// edit here).
std::string algorithmChoicesText(bool markdown) {
  std::vector<std::string> names{markdown ? "`auto` (default)" : "auto"};
  for (Algorithm algorithm : allAlgorithms())
    names.push_back(markdown ? "`" + std::string(algorithmName(algorithm)) + "`" : algorithmName(algorithm));
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += (!markdown && i + 1 == names.size()) ? " or " : ", ";
    text += names[i];
  }
  return text;
}

struct VariableCase {
  const char* name;
  std::vector<const char*> good;
  std::vector<const char*> bad;
  const char* accepted;  // part of what the error must say is accepted
};

const std::vector<VariableCase>& variableCases() {
  static const std::string algorithmText = algorithmChoicesText(false);
  static const std::vector<VariableCase> cases{
      {"HETCCL_DEBUG",
       {"NONE", "VERSION", "warn", "INFO", "ABORT", "TRACE"},
       {"NONSENSE", "1", "INFO2"},
       "NONE, VERSION, WARN, INFO, ABORT or TRACE"},
      {"HETCCL_DEVICE",
       {"auto", "host", "CUDA", "hip", "host-strict"},
       {"gpu", "host ", "strict"},
       "auto, host, cuda, hip or host-strict"},
      {"HETCCL_DEVICE_ID", {"0", "3"}, {"-5", "x", "1.5", "99999999999"}, "an integer >= 0"},
      {"HETCCL_ALGO",
       {"auto", "ring", "HIER", "torus", "hier-rhd", "Hier-Tree", "small", "native"},
       {"butterfly", "ring,hier", "rhd"},
       algorithmText.c_str()},
      {"HETCCL_CHUNK_BYTES",
       {"1", "64K", "8MB", "2g"},
       {"lots", "0", "-1", "1.5M", "99999999999999999999"},
       "a byte count >= 1"},
      {"HETCCL_PIPELINE_DEPTH",
       {"1", "7", "64"},
       {"abc", "4294967297", "0", "65", "-1", "4x"},
       "an integer from 1 to 64"},
      {"HETCCL_ISLAND_SLICES", {"0", "1", "16"}, {"-1", "17", "auto"}, "an integer from 0 to 16"},
      {"HETCCL_STAGING", {"auto", "force", "OFF"}, {"on", "yes"}, "auto, force or off"},
      {"HETCCL_GPU_AWARE_MPI", {"detect", "0", "1"}, {"yes", "2"}, "detect, 0 or 1"},
      {"HETCCL_ISLAND_SCOPE", {"node", "JOB"}, {"world"}, "node or job"},
      {"HETCCL_LINK_PROBE", {"0", "1"}, {"yes", "2", "true"}, "0 or 1"},
      {"HETCCL_EMULATE_VENDORS",
       {"nvidia:2,amd:2", "nvidia,amd", "nvidia:99999999999"},
       {"nvidia:", ":2", "nvidia:0", "nvidia:x", "a:1:2", "nvidia,,amd"},
       "name[:count],..."},
      {"HETCCL_EMULATE_NODES", {"n0:2,n1:2"}, {"n0:-1", "n0:2,"}, "name[:count],..."},
      {"HETCCL_TRANSPORT_MAX_MESSAGE_BYTES", {"1", "1G"}, {"0", "big"}, "a byte count >= 1"},
      {"HETCCL_SHM_MAX_BYTES", {"0", "8", "64K", "1G"}, {"-1", "small", "2.5K"}, "a byte count >= 0"},
      {"HETCCL_PROGRESS", {"auto", "THREAD", "caller"}, {"async", "1", "threads"}, "auto, thread or caller"},
      {"HETCCL_INLINE_BYTES", {"0", "8", "64K", "1M"}, {"-1", "small", "1.5K"}, "a byte count >= 0"},
      {"HETCCL_TIMEOUT", {"0", "2", "1800"}, {"-1", "2s", "1073741825", "forever"}, "an integer from 0 to 1073741824"},
      {"HETCCL_CHECK_CALLS", {"0", "1"}, {"yes", "2", "on"}, "0 or 1"},
      {"HETCCL_ACCUMULATE", {"native", "FLOAT32"}, {"fp32", "float", "1"}, "native or float32"},
      {"HETCCL_WAIT", {"poll", "BLOCK"}, {"spin", "1", "waitany"}, "poll or block"},
      {"HETCCL_HOST_STREAMS", {"worker", "Inline"}, {"threads", "0", "sync"}, "worker or inline"},
      {"HETCCL_NODE_NAME", {"host", "mpi"}, {"hostname", "MPI_Get_processor_name", "2"}, "host or mpi"},
      {"HETCCL_QUEUE_DEPTH", {"1", "1024", "1048576"}, {"0", "-3", "1048577", "deep"}, "an integer from 1 to 1048576"},
  };
  return cases;
}

TEST_F(SettingsTest, EveryVariableAcceptsGoodValuesAndRefusesBadOnesNamingWhatItAccepts) {
  for (const VariableCase& c : variableCases()) {
    for (const char* value : c.good) {
      ScopedEnv set(c.name, value);
      const Status status = checkAll();
      EXPECT_TRUE(status.isOk()) << c.name << "=" << value << ": " << status.message();
    }
    for (const char* value : c.bad) {
      ScopedEnv set(c.name, value);
      const Status status = checkAll();
      EXPECT_EQ(status.code(), Code::InvalidArgument) << c.name << "=" << value;
      EXPECT_NE(status.message().find(std::string(c.name) + "=" + value), std::string::npos) << status.message();
      EXPECT_NE(status.message().find(c.accepted), std::string::npos) << status.message();
    }
  }
}

TEST_F(SettingsTest, EveryHetcclVariableHasACase) {
  // Text settings are given meaning (and checked) by their readers: tested below.
  std::set<std::string> covered;
  for (const VariableCase& c : variableCases()) covered.insert(c.name);
  for (const SettingSpec& spec : settingsTable())
    if (spec.section == SettingSection::Hetccl && spec.kind != SettingKind::Text) {
      EXPECT_TRUE(covered.count(spec.name)) << spec.name << " has no good/bad value case";
    }
}

TEST_F(SettingsTest, EmulatedLinksAreParsedFromTheirVariable) {
  EmulatedLinks links;
  ASSERT_TRUE(emulatedLinksFromSettings(&links).isOk());
  EXPECT_FALSE(links.any());
  {
    ScopedEnv set("HETCCL_EMULATE_LINKS", "intra:8GB/s:2us,inter:1GB/s:20us");
    ASSERT_TRUE(emulatedLinksFromSettings(&links).isOk());
    EXPECT_TRUE(links.any());
    EXPECT_DOUBLE_EQ(links.interIsland.bytesPerSecond, 1e9);
  }
  for (const char* bad : {"inter:1GB/s", "outer:1GB/s:2us", "inter:fast:2us"}) {
    ScopedEnv set("HETCCL_EMULATE_LINKS", bad);
    const Status status = emulatedLinksFromSettings(&links);
    EXPECT_EQ(status.code(), Code::InvalidArgument) << bad;
    EXPECT_NE(status.message().find("HETCCL_EMULATE_LINKS"), std::string::npos) << status.message();
  }
}

TEST_F(SettingsTest, TextSettingsAreTheirTextOrTheirDefault) {
  EXPECT_EQ(readText(SettingId::IslandLibrary), "auto");
  EXPECT_EQ(readText(SettingId::DebugFile), "");
  ScopedEnv set("HETCCL_ISLAND_LIBRARY", "/opt/x/libnccl.so.2");
  EXPECT_EQ(readText(SettingId::IslandLibrary), "/opt/x/libnccl.so.2");
  EXPECT_EQ(settingSource(SettingId::IslandLibrary), SettingSource::Environment);
}

TEST_F(SettingsTest, EmptyMeansUnset) {
  ScopedEnv depth("HETCCL_PIPELINE_DEPTH", "");
  long long value = 0;
  ASSERT_TRUE(readInteger(SettingId::PipelineDepth, &value).isOk());
  EXPECT_EQ(value, 4);
  EXPECT_EQ(settingSource(SettingId::PipelineDepth), SettingSource::Default);
}

TEST_F(SettingsTest, LauncherLocalRanksAreNonNegativeIntegers) {
  long long rank = -1;
  bool set = true;
  ASSERT_TRUE(readInteger(SettingId::SlurmLocalId, &rank, &set).isOk());
  EXPECT_FALSE(set);
  {
    ScopedEnv local("SLURM_LOCALID", "5");
    ASSERT_TRUE(readInteger(SettingId::SlurmLocalId, &rank, &set).isOk());
    EXPECT_TRUE(set);
    EXPECT_EQ(rank, 5);
  }
  ScopedEnv local("OMPI_COMM_WORLD_LOCAL_RANK", "x");
  const Status status = readInteger(SettingId::OmpiLocalRank, &rank);
  EXPECT_EQ(status.code(), Code::InvalidArgument);
  EXPECT_NE(status.message().find("OMPI_COMM_WORLD_LOCAL_RANK=x"), std::string::npos) << status.message();
}

// ---- per-rank lists ----------------------------------------------------------------------

TEST(RankList, ExpandsNamesAndCountsInRankOrder) {
  std::vector<std::string> names;
  ASSERT_TRUE(expandRankList("a:2,b,c:3", 6, "V", &names).isOk());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "a", "b", "c", "c", "c"}));
}

TEST(RankList, RefusesAListThatIsNotTheJob) {
  std::vector<std::string> names;
  const Status fewer = expandRankList("a:2,b", 4, "HETCCL_EMULATE_VENDORS", &names);
  EXPECT_EQ(fewer.code(), Code::InvalidArgument);
  EXPECT_NE(fewer.message().find("describes 3 ranks but the job has 4"), std::string::npos) << fewer.message();
  // A count far beyond the job is an error about the job, not an attempt to allocate it.
  const Status huge = expandRankList("nvidia:99999999999", 4, "HETCCL_EMULATE_VENDORS", &names);
  EXPECT_EQ(huge.code(), Code::InvalidArgument);
  EXPECT_NE(huge.message().find("describes more than 4 ranks but the job has 4"), std::string::npos) << huge.message();
  const Status overflow = expandRankList("nvidia:99999999999999999999999", 4, "HETCCL_EMULATE_VENDORS", &names);
  EXPECT_EQ(overflow.code(), Code::InvalidArgument);
  // The largest count after another: summing them would overflow (found by the fuzz target).
  const Status sum = expandRankList("a:1,b:9223372036854775807", 4, "HETCCL_EMULATE_VENDORS", &names);
  EXPECT_EQ(sum.code(), Code::InvalidArgument);
  EXPECT_NE(sum.message().find("describes more than 4 ranks"), std::string::npos) << sum.message();
}

// ---- a communicator's settings -----------------------------------------------------------

TEST(Settings, ParsesByteSizes) {
  size_t bytes = 0;
  EXPECT_TRUE(parseByteSize("4096", &bytes));
  EXPECT_EQ(bytes, 4096u);
  EXPECT_TRUE(parseByteSize("512K", &bytes));
  EXPECT_EQ(bytes, 512u << 10);
  EXPECT_TRUE(parseByteSize("2M", &bytes));
  EXPECT_EQ(bytes, 2u << 20);
  EXPECT_TRUE(parseByteSize("1g", &bytes));
  EXPECT_EQ(bytes, size_t{1} << 30);
  EXPECT_TRUE(parseByteSize("8MB", &bytes));
  EXPECT_EQ(bytes, 8u << 20);
  for (const char* bad : {"", "-1", "12X", "M", "1.5M", "99999999999999999999"})
    EXPECT_FALSE(parseByteSize(bad, &bytes)) << bad;
}

TEST_F(SettingsTest, DefaultsWithoutEnvironment) {
  Settings s;
  ASSERT_TRUE(loadSettings(nullptr, &s).isOk());
  EXPECT_EQ(s.chunkBytes, size_t{1} << 20);
  EXPECT_FALSE(s.chunkBytesSet());
  EXPECT_EQ(s.pipelineDepth, 4);
  EXPECT_FALSE(s.algorithm.has_value());
  EXPECT_EQ(algorithmSettingName(s), "auto");
  EXPECT_EQ(s.staging, StagingMode::Auto);
  EXPECT_EQ(s.gpuAwareMpi, GpuAwareMpiOverride::Detect);
  EXPECT_EQ(s.islandLibrary.mode, IslandLibraryChoice::Mode::Auto);
  EXPECT_EQ(s.maxMessageBytes, size_t{1} << 30);
  EXPECT_EQ(s.source(SettingId::Algorithm), SettingSource::Default);
}

TEST_F(SettingsTest, ABuiltSettingsHoldsTheTablesDefaults) {
  // Code that builds Settings without loading them (hetccl-sim's tests, a communicator before
  // creation) gets what loading gives with nothing set: the table's defaults, in every field.
  Settings loaded, built;
  ASSERT_TRUE(loadSettings(nullptr, &loaded).isOk());
  for (const SettingBinding& binding : settingBindings()) {
    const SettingSpec& spec = settingSpec(binding.id);
    EXPECT_EQ(shown(binding, built), shown(binding, loaded)) << spec.name;
    EXPECT_EQ(built.source(binding.id), SettingSource::Default) << spec.name;
  }
}

TEST_F(SettingsTest, EnvironmentOverridesDefaultsAndConfigOverridesEnvironment) {
  ScopedEnv chunk("HETCCL_CHUNK_BYTES", "64K"), depth("HETCCL_PIPELINE_DEPTH", "7"), algo("HETCCL_ALGO", "RING");
  ScopedEnv staging("HETCCL_STAGING", "force"), aware("HETCCL_GPU_AWARE_MPI", "1");
  Settings s;
  ASSERT_TRUE(loadSettings(nullptr, &s).isOk());
  EXPECT_EQ(s.chunkBytes, 64u << 10);
  EXPECT_TRUE(s.chunkBytesSet());
  EXPECT_EQ(s.pipelineDepth, 7);
  EXPECT_EQ(s.algorithm, Algorithm::Ring);
  EXPECT_EQ(s.staging, StagingMode::Force);
  EXPECT_EQ(s.gpuAwareMpi, GpuAwareMpiOverride::Yes);
  EXPECT_EQ(s.source(SettingId::PipelineDepth), SettingSource::Environment);
  EXPECT_EQ(tunerSettings(s).forcedBy, "HETCCL_ALGO");
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.pipelineDepth = 2;
  config.algorithm = "hier";
  ASSERT_TRUE(loadSettings(&config, &s).isOk());
  EXPECT_EQ(s.pipelineDepth, 2);
  EXPECT_EQ(s.source(SettingId::PipelineDepth), SettingSource::Config);
  EXPECT_EQ(s.chunkBytes, 64u << 10);  // left undefined in the config
  EXPECT_EQ(s.source(SettingId::ChunkBytes), SettingSource::Environment);
  EXPECT_EQ(s.algorithm, Algorithm::Hierarchical);
  EXPECT_EQ(algorithmSettingName(s), "hier");
  ASSERT_TRUE(tunerSettings(s).forced.has_value());
  EXPECT_EQ(*tunerSettings(s).forced, Algorithm::Hierarchical);
  EXPECT_EQ(tunerSettings(s).forcedBy, "config.algorithm");
}

TEST_F(SettingsTest, BadValuesAreInvalidArgumentsNamingTheVariable) {
  {
    ScopedEnv bad("HETCCL_CHUNK_BYTES", "lots");
    Settings s;
    Status status = loadSettings(nullptr, &s);
    EXPECT_EQ(status.code(), Code::InvalidArgument);
    EXPECT_NE(status.message().find("HETCCL_CHUNK_BYTES=lots"), std::string::npos) << status.message();
  }
  for (const char* depth : {"0", "abc", "4294967297"}) {
    ScopedEnv bad("HETCCL_PIPELINE_DEPTH", depth);
    Settings s;
    Status status = loadSettings(nullptr, &s);
    EXPECT_EQ(status.code(), Code::InvalidArgument) << depth;
    EXPECT_NE(status.message().find("expected an integer from 1 to 64"), std::string::npos) << status.message();
  }
  {
    // Read elsewhere (the log, a GPU module), still refused when a communicator is made.
    ScopedEnv debug("HETCCL_DEBUG", "NONSENSE");
    Settings s;
    EXPECT_EQ(loadSettings(nullptr, &s).code(), Code::InvalidArgument);
  }
  {
    ScopedEnv device("HETCCL_DEVICE_ID", "-5");
    Settings s;
    EXPECT_EQ(loadSettings(nullptr, &s).code(), Code::InvalidArgument);
  }
  {
    ScopedEnv bad("HETCCL_ALGO", "butterfly");
    Settings s;
    Status status = loadSettings(nullptr, &s);
    EXPECT_EQ(status.code(), Code::InvalidArgument);
    EXPECT_NE(status.message().find("butterfly"), std::string::npos);
  }
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  Settings s;
  config.algorithm = "butterfly";
  Status status = loadSettings(&config, &s);
  EXPECT_EQ(status.code(), Code::InvalidArgument);
  EXPECT_NE(status.message().find("config.algorithm=butterfly: expected auto, ring"), std::string::npos)
      << status.message();
  config = HETCCL_CONFIG_INITIALIZER;
  config.pipelineDepth = 65;
  EXPECT_EQ(loadSettings(&config, &s).code(), Code::InvalidArgument);
  config = HETCCL_CONFIG_INITIALIZER;
  config.magic = 0;
  EXPECT_EQ(loadSettings(&config, &s).code(), Code::InvalidArgument);
}

TEST_F(SettingsTest, ConfigSetsTheTimeoutAndTheCallCheckOverTheEnvironment) {
  ScopedEnv timeout("HETCCL_TIMEOUT", "60"), check("HETCCL_CHECK_CALLS", "0");
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  Settings s;
  ASSERT_TRUE(loadSettings(&config, &s).isOk());  // undefined fields: the environment's
  EXPECT_EQ(s.timeoutSeconds, 60);
  EXPECT_EQ(s.source(SettingId::Timeout), SettingSource::Environment);
  config.timeoutSeconds = 5;
  config.checkCalls = 1;
  ASSERT_TRUE(loadSettings(&config, &s).isOk());
  EXPECT_EQ(s.timeoutSeconds, 5);
  EXPECT_TRUE(s.checkCalls);
  EXPECT_EQ(s.source(SettingId::Timeout), SettingSource::Config);
  EXPECT_EQ(s.source(SettingId::CheckCalls), SettingSource::Config);
  config.timeoutSeconds = -1;
  Status status = loadSettings(&config, &s);
  EXPECT_EQ(status.code(), Code::InvalidArgument);
  EXPECT_NE(status.message().find("config.timeoutSeconds=-1: expected an integer from 0"), std::string::npos)
      << status.message();
  config = HETCCL_CONFIG_INITIALIZER;
  config.checkCalls = 2;
  EXPECT_EQ(loadSettings(&config, &s).code(), Code::InvalidArgument);
}

TEST_F(SettingsTest, AnOlderProgramsShorterConfigIsReadAndANewerOneRefused) {
  // A program built against the first header passes a config that ends after `algorithm`;
  // whatever lies beyond it in memory is not the program's and must not be read.
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.size = offsetof(hetcclConfig_t, timeoutSeconds);
  config.pipelineDepth = 3;
  config.timeoutSeconds = -7;  // beyond the older size: ignored, not refused
  config.checkCalls = 1;
  Settings s;
  ASSERT_TRUE(loadSettings(&config, &s).isOk());
  EXPECT_EQ(s.pipelineDepth, 3);
  EXPECT_EQ(s.timeoutSeconds, 1800);
  EXPECT_FALSE(s.checkCalls);
  config.size = offsetof(hetcclConfig_t, algorithm);  // shorter than any header's
  EXPECT_EQ(loadSettings(&config, &s).code(), Code::InvalidArgument);
  config.size = sizeof(hetcclConfig_t) + 8;
  Status status = loadSettings(&config, &s);
  EXPECT_EQ(status.code(), Code::InvalidArgument);
  EXPECT_NE(status.message().find("newer hetccl header"), std::string::npos) << status.message();
}

TEST_F(SettingsTest, IslandLibraryIsAutoOffOrALibrary) {
  Settings s;
  {
    ScopedEnv off("HETCCL_ISLAND_LIBRARY", "OFF");
    ASSERT_TRUE(loadSettings(nullptr, &s).isOk());
    EXPECT_EQ(s.islandLibrary.mode, IslandLibraryChoice::Mode::Off);
  }
  ScopedEnv named("HETCCL_ISLAND_LIBRARY", "/opt/nccl/lib/libnccl.so.2");
  ASSERT_TRUE(loadSettings(nullptr, &s).isOk());
  EXPECT_EQ(s.islandLibrary.mode, IslandLibraryChoice::Mode::Named);
  EXPECT_EQ(s.islandLibrary.name, "/opt/nccl/lib/libnccl.so.2");
}

TEST_F(SettingsTest, ModesAreTheTablesEnums) {
  const std::pair<const char*, GpuAwareMpiOverride> aware[] = {
      {"detect", GpuAwareMpiOverride::Detect}, {"0", GpuAwareMpiOverride::No}, {"1", GpuAwareMpiOverride::Yes}};
  for (const auto& [text, expected] : aware) {
    ScopedEnv set("HETCCL_GPU_AWARE_MPI", text);
    Settings s;
    ASSERT_TRUE(loadSettings(nullptr, &s).isOk());
    EXPECT_EQ(s.gpuAwareMpi, expected) << text;
  }
  ScopedEnv staging("HETCCL_STAGING", "off");
  Settings s;
  ASSERT_TRUE(loadSettings(nullptr, &s).isOk());
  EXPECT_EQ(s.staging, StagingMode::Off);
  EXPECT_EQ(choiceName(SettingId::Staging, s.staging), "off");
  IslandScope scope = IslandScope::Node;
  ScopedEnv job("HETCCL_ISLAND_SCOPE", "job");
  ASSERT_TRUE(readEnum(SettingId::IslandScope, &scope).isOk());
  EXPECT_EQ(scope, IslandScope::Job);
  DeviceRequest device = DeviceRequest::Auto;
  ScopedEnv hip("HETCCL_DEVICE", "hip");
  ASSERT_TRUE(readEnum(SettingId::Device, &device).isOk());
  EXPECT_EQ(device, DeviceRequest::Hip);
}

TEST_F(SettingsTest, EffectiveSettingsListEveryVariableWithItsSource) {
  ScopedEnv staging("HETCCL_STAGING", "force"), depth("HETCCL_PIPELINE_DEPTH", "3");
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.pipelineDepth = 5;
  Settings s;
  ASSERT_TRUE(loadSettings(&config, &s).isOk());
  std::vector<EffectiveSetting> all = effectiveSettings(s);
  size_t hetcclVariables = 0;
  for (const SettingSpec& spec : settingsTable()) hetcclVariables += spec.section == SettingSection::Hetccl;
  ASSERT_EQ(all.size(), hetcclVariables);
  auto find = [&](const std::string& name) {
    for (const EffectiveSetting& setting : all)
      if (setting.name == name) return setting;
    return EffectiveSetting{};
  };
  EXPECT_EQ(find("HETCCL_STAGING").value, "force");
  EXPECT_EQ(find("HETCCL_STAGING").source, SettingSource::Environment);
  EXPECT_EQ(find("HETCCL_PIPELINE_DEPTH").value, "5");
  EXPECT_EQ(find("HETCCL_PIPELINE_DEPTH").source, SettingSource::Config);
  EXPECT_EQ(find("HETCCL_ALGO").value, "auto");
  EXPECT_EQ(find("HETCCL_ALGO").source, SettingSource::Default);
  EXPECT_EQ(find("HETCCL_EMULATE_VENDORS").value, "");
}

TEST_F(SettingsTest, MarkdownListsEveryVariableAndTheAlgorithms) {
  const std::string markdown = settingsMarkdown(handedInSettingChoices());
  for (const SettingSpec& spec : settingsTable())
    EXPECT_NE(markdown.find(std::string("| `") + spec.name + "` |"), std::string::npos) << spec.name;
  EXPECT_NE(markdown.find(algorithmChoicesText(true)), std::string::npos) << algorithmChoicesText(true);
  EXPECT_NE(markdown.find("| `HETCCL_PIPELINE_DEPTH` | 1–64 (`4`) |"), std::string::npos);
}

TEST(MpiTransport, SplitsMessagesAboveTheLimit) {
  EXPECT_EQ(messagePieceCount(0, 1000), 1u);
  EXPECT_EQ(messagePieceCount(1000, 1000), 1u);
  EXPECT_EQ(messagePieceCount(1001, 1000), 2u);
  // Above INT_MAX with the default 1 GiB pieces: 5 GiB + 1 byte takes 6 pieces.
  EXPECT_EQ(messagePieceCount((size_t{5} << 30) + 1, kDefaultMaxMessageBytes), 6u);
}

}  // namespace
}  // namespace hetccl
