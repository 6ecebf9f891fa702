// question_add / question_answer / question_list: open questions raised during work
// (dokoro dokoro_question_*), kept per project so every agent sees them.
#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/result_page.hpp"
#include "kioku/sdk/sql.hpp"
#include "tools.hpp"

namespace kioku::working {
namespace {

constexpr const char* kQuestionColumns =
    "id, asked_by, question, context, created_at, answer, answered_by, answered_at";

Json QuestionJson(SQLite::Statement& q) {
  const bool answered = !q.getColumn(7).isNull();
  return {{"question_id", q.getColumn(0).getString()},
          {"asked_by", q.getColumn(1).getString()},
          {"question", q.getColumn(2).getString()},
          {"context", q.getColumn(3).getString()},
          {"created_at", Rfc(q.getColumn(4).getInt64())},
          {"status", answered ? "answered" : "open"},
          {"answer", answered ? Json(q.getColumn(5).getString()) : Json(nullptr)},
          {"answered_by", answered ? Json(q.getColumn(6).getString()) : Json(nullptr)},
          {"answered_at", answered ? Json(Rfc(q.getColumn(7).getInt64())) : Json(nullptr)}};
}

sdk::ToolResult QuestionAdd(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  const std::string question =
      RequiredTextArg(env, args, "question", env.settings.max_text_bytes);
  const std::string context =
      TextArg(env, args, "context", env.settings.max_text_bytes).value_or("");
  auto& db = env.Db();
  std::string id;
  std::int64_t now = 0;
  sdk::WithWriteTransaction(db, [&] {
    now = env.Now();
    id = sdk::NewId(now);
    SQLite::Statement ins(db,
                          "INSERT INTO working_questions (id, project_id, asked_by, question, "
                          "context, session_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
    sdk::Bind(ins, id, actor.project_id, actor.agent_id, question, context, actor.session_id, now);
    ins.exec();
    RecordEvent(db, actor, "question.add", id, {{"excerpt", Snip(question, 120)}}, now);
    TouchPresence(db, actor, now);
  });
  return sdk::ToolResult::Ok("question " + id + " recorded (open)",
                             {{"question_id", id}, {"created_at", Rfc(now)}});
}

sdk::ToolResult QuestionAnswer(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  const std::string raw_id = args.value("question_id", std::string());
  const std::string answer = RequiredTextArg(env, args, "answer", env.settings.max_text_bytes);
  auto& db = env.Db();
  Json out;
  sdk::WithWriteTransaction(db, [&] {
    const std::int64_t now = env.Now();
    const std::string id =
        sdk::ResolveIdPrefix(db, "working_questions", "id", raw_id, "question");
    SQLite::Statement q(db, std::string("SELECT project_id, answered_by, answered_at FROM "
                                        "working_questions WHERE id = ?"));
    sdk::Bind(q, id);
    if (!q.executeStep() || q.getColumn(0).getString() != actor.project_id) {
      throw sdk::ToolError("unknown question id '" + raw_id +
                           "' in this project; question_list shows the open ones");
    }
    if (!q.getColumn(2).isNull()) {
      throw sdk::ToolError("question " + id + " was already answered by " +
                           q.getColumn(1).getString() + " at " +
                           Rfc(q.getColumn(2).getInt64()) +
                           "; nothing was changed. Add a new question if it needs revisiting.");
    }
    SQLite::Statement upd(db,
                          "UPDATE working_questions SET answer = ?, answered_by = ?, "
                          "answered_at = ? WHERE id = ? AND answered_at IS NULL");
    sdk::Bind(upd, answer, actor.agent_id, now, id);
    upd.exec();
    RecordEvent(db, actor, "question.answer", id, {{"excerpt", Snip(answer, 120)}}, now);
    TouchPresence(db, actor, now);
    SQLite::Statement back(db, std::string("SELECT ") + kQuestionColumns +
                                   " FROM working_questions WHERE id = ?");
    sdk::Bind(back, id);
    back.executeStep();
    out = QuestionJson(back);
  });
  FitFields(out, {"question", "context", "answer"}, sdk::ResultRoom(ctx) - 512);
  std::string text = "question " + out["question_id"].get<std::string>() + " answered";
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

sdk::ToolResult QuestionList(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx, /*agent_required=*/false);
  const std::string status = args.value("status", std::string("open"));
  const std::int64_t limit = args.value("limit", std::int64_t{50});
  auto& db = env.Db();
  std::string where = "project_id = ?1";
  if (status == "open") where += " AND answered_at IS NULL";
  if (status == "answered") where += " AND answered_at IS NOT NULL";
  SQLite::Statement q(db, std::string("SELECT ") + kQuestionColumns +
                              " FROM working_questions WHERE " + where +
                              " ORDER BY created_at DESC, id DESC LIMIT -1 OFFSET ?2");
  const std::size_t offset = sdk::CursorOffset(args, "question_list");
  sdk::Bind(q, actor.project_id, static_cast<std::int64_t>(offset));
  sdk::ResultPage page(offset, static_cast<std::size_t>(limit), sdk::ResultRoom(ctx));
  Json list = Json::array();
  std::string lines;
  while (q.executeStep()) {
    if (page.Shown() >= static_cast<std::size_t>(limit) || page.Omitted() > 0) {
      page.Offer(0);  // past the page: counted only
      continue;
    }
    Json item = QuestionJson(q);
    FitFields(item, {"question", "context", "answer"}, sdk::ResultRoom(ctx) - 1024);  // one row never overflows
    std::string line = "\n- " + item["question_id"].get<std::string>() + " [" +
                       item["status"].get<std::string>() + "] " + item["asked_by"].get<std::string>() +
                       ": " + Snip(item["question"].get<std::string>(), 120);
    if (!item["answer"].is_null()) {
      line += " → " + item["answered_by"].get<std::string>() + ": " +
              Snip(item["answer"].get<std::string>(), 120);
    }
    if (!page.Offer(sdk::RowBytes(item, line))) continue;
    lines += line;
    list.push_back(std::move(item));
  }
  std::string text = std::to_string(list.size()) + " " +
                     (status == "all" ? std::string("") : status + " ") + "question(s)" + lines;
  if (const std::string more = page.MoreText("question_list"); !more.empty()) text += "\n" + more;
  Json out = {{"questions", std::move(list)}, {"status", status}};
  page.Describe(out);
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

}  // namespace

void RegisterQuestionTools(sdk::Registrar& registrar, const ToolContext& env) {
  const std::int64_t max_text = env.settings.max_text_bytes;
  {
    sdk::ToolSpec spec;
    spec.name = "question_add";
    spec.title = "Record an open question";
    spec.description =
        "Record an open question for the user, another agent or a later session.";
    spec.input_schema =
        schema::Object({{"question", schema::String(max_text, "", 1)},
                        {"context", schema::String(max_text, "file, task, what you tried")},
                        {"agent_id", AgentIdProp()}},
                       {"question"});
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.output_schema = schema::Output(
          {{"question_id", schema::Type("string")}, {"created_at", schema::Type("string")}}, {"question_id"});
    };
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return QuestionAdd(env, a, c);
    });
  }
  Json question = schema::Output({{"question_id", schema::Type("string")},
                                  {"asked_by", schema::Type("string")},
                                  {"question", schema::Type("string")},
                                  {"context", schema::Type("string")},
                                  {"created_at", schema::Type("string")},
                                  {"status", {{"enum", {"open", "answered"}}}},
                                  {"answer", schema::Nullable(schema::Type("string"))},
                                  {"answered_by", schema::Nullable(schema::Type("string"))},
                                  {"answered_at", schema::Nullable(schema::Type("string"))}},
                                 {"question_id", "asked_by", "question", "status", "answer"});
  {
    sdk::ToolSpec spec;
    spec.name = "question_answer";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "Answer an open question";
    spec.description =
        "Records the answer to an open question (id or unique prefix >= 4 chars from "
        "question_list). A question is answered once; answering it again is refused.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema =
          schema::Object({{"question_id", schema::String(64, "Question id or unique prefix (>= 4 chars).", 4)},
                          {"answer", schema::String(max_text, "The answer.", 1)},
                          {"agent_id", AgentIdProp()}},
                         {"question_id", "answer"});
      t.output_schema = question;
    };
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return QuestionAnswer(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "question_list";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "List questions";
    spec.description =
        "Lists this project's questions, newest first: open ones by default, or answered / "
        "all. Check open questions when you resume work.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object({
          {"status", schema::Enum({"open", "answered", "all"}, "open (default), answered or all.")},
          {"limit", schema::Integer(1, 500, "Most questions to return (default 50).")},
          {"cursor", schema::String(16)},
          {"agent_id", AgentIdProp()},
      });
      t.output_schema = schema::Output({{"questions", schema::ArrayOf(question)},
                                        {"status", schema::Type("string")},
                                        {"omitted", schema::Type("integer")},
                                        {"next_cursor", schema::Type("string")}},
                                       {"questions", "status", "omitted"});
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return QuestionList(env, a, c);
    });
  }
}

}  // namespace kioku::working
