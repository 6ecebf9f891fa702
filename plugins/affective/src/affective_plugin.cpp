#include "affective_plugin.hpp"

#include <exception>

#include "capture.hpp"
#include "hook.hpp"
#include "kioku/sdk/outcome_events.hpp"
#include "schema.hpp"
#include "exporter.hpp"

namespace kioku::affective {

AffectivePlugin::AffectivePlugin(sdk::HostServices& host)
    : host_(host),
      // Validated and defaulted by the host before construction (ABI 2).
      settings_(ParseSettings(host.Settings())),
      recorder_(host, settings_),
      context_{host, settings_, recorder_} {}

nlohmann::json AffectivePlugin::SettingsSchema() { return affective::SettingsSchema(); }

std::vector<sdk::Migration> AffectivePlugin::Migrations() const {
  return affective::Migrations(host_.Projects());
}

void AffectivePlugin::Register(sdk::Registrar& registrar) {
  registrar.AddExporter(AffectiveExporter(recorder_.HalfLifeMs()));
  RegisterRecordTool(registrar, context_);
  RegisterQueryTool(registrar, context_);
  RegisterRouteTool(registrar, context_);

  sdk::CommandSpec hook;
  hook.name = "hook";
  hook.summary = "Record an agent tool outcome from a Claude Code PostToolUse hook (stdin)";
  hook.usage = kHookUsage;
  hook.run = [this](const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                    std::ostream& err) { return RunHookCommand(args, in, out, err, context_); };
  registrar.AddCommand(std::move(hook));

  if (settings_.capture) {
    host_.Events().Subscribe(sdk::kToolCalledTopic, MakeCaptureHandler(context_, captured_));
  }
  // Outcomes other layers report explicitly (a procedure followed) are always recorded.
  host_.Events().Subscribe(sdk::kOutcomeReportedTopic, MakeCaptureHandler(context_, captured_));
}

void AffectivePlugin::Start() {
  try {
    recorder_.RebuildDecayIfNeeded();
    // Retention is bookkeeping: the host's background writer runs it, so start-up never
    // queues behind another process's write lock (ARCHITECTURE.md "Reads do not write").
    host_.DeferWrite([this](SQLite::Database&) { recorder_.MaybePrune(kStartPruneChunks); });
  } catch (const std::exception& e) {
    // Housekeeping; a locked database must not stop the server.
    host_.Log().Warn(std::string("start-up housekeeping failed: ") + e.what());
  }
}

}  // namespace kioku::affective
