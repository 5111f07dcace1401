// Documents in four writing systems, written for these tests (docs/design.md, the table of
// scripts): each split into units with its heading found, its word budget held, and a sentence
// that repeats a word trigram of a chosen one blocked.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/document.h"
#include "model/internal/select.h"
#include "model/select.h"

namespace rpsum::model {
namespace {

struct Case {
  const char* name;
  std::string text;
  std::string heading;
  size_t sentences;  // units after the heading
  size_t repeat;     // the unit (after the heading) that repeats unit 1's trigram
};

std::vector<Case> Cases() {
  return {
      {"Thai",
       "บทนำ\n"
       "ระบบนี้สรุปเอกสารยาวให้สั้นลง ผู้ใช้ส่งเอกสารมาทางเครือข่าย "
       "เซิร์ฟเวอร์อ่านเอกสารแล้วเลือกประโยคที่สำคัญที่สุด "
       "ผู้ใช้ส่งเอกสารมาทางเครือข่ายทุกวัน",
       "บทนำ", 4, 3},
      {"Korean",
       "개요\n"
       "이 서비스는 긴 문서를 짧게 요약합니다. 사용자는 네트워크로 문서를 보냅니다. "
       "서버는 가장 중요한 문장을 고릅니다. 사용자는 네트워크로 문서를 매일 보냅니다.",
       "개요", 4, 3},
      {"Russian",
       "Введение\n"
       "Этот сервис кратко излагает длинные документы. Пользователь отправляет документ по "
       "сети. Сервер выбирает самые важные предложения. Пользователь Отправляет Документ "
       "каждый день.",
       "Введение", 4, 3},
      {"French",
       "Résumé\n"
       "Le service résume les documents très longs. L'équipe déploie le résumé chaque "
       "semaine. Le serveur choisit les phrases les plus importantes. L'ÉQUIPE DÉPLOIE LE "
       "RÉSUMÉ le vendredi.",
       "Résumé", 4, 3},
  };
}

TEST(Scripts, UnitsHeadingsBudgetsAndRedundancyBlocking) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const std::vector<Unit> units = SplitUnits(c.text);
    ASSERT_EQ(units.size(), 1 + c.sentences);
    EXPECT_EQ(units[0].kind, UnitKind::kHeading);
    EXPECT_EQ(c.text.substr(units[0].begin, units[0].end - units[0].begin), c.heading);
    std::vector<std::string_view> texts;
    std::vector<int32_t> words;
    for (size_t i = 1; i < units.size(); ++i) {
      EXPECT_EQ(units[i].kind, UnitKind::kSentence);
      EXPECT_GE(units[i].words, 4) << c.text.substr(units[i].begin, units[i].end - units[i].begin);
      EXPECT_FALSE(units[i].is_short);
      texts.push_back(
          std::string_view{c.text}.substr(units[i].begin, units[i].end - units[i].begin));
      words.push_back(units[i].words);
    }
    // Unit 1 scores first and the repeat of its trigram second: blocked, unit 2 is chosen in
    // its place.
    std::vector<float> scores(texts.size(), 0.1f);
    scores[1] = 0.9f;
    scores[c.repeat] = 0.8f;
    scores[2] = 0.7f;
    SelectOptions o;
    o.budget = {Budget::Kind::kUnits, 2};
    EXPECT_EQ(SelectByScore(scores, texts, words, o), (std::vector<int32_t>{1, 2}));
    o.trigram_blocking = false;
    EXPECT_EQ(SelectByScore(scores, texts, words, o),
              (std::vector<int32_t>{1, static_cast<int32_t>(c.repeat)}));
    // A word budget of those two units' words holds: nothing else fits.
    o.trigram_blocking = true;
    o.budget = {Budget::Kind::kWords, static_cast<double>(words[1] + words[2])};
    const std::vector<int32_t> chosen = SelectByScore(scores, texts, words, o);
    int32_t total = 0;
    for (int32_t i : chosen) total += words[i];
    EXPECT_LE(total, words[1] + words[2]);
    EXPECT_EQ(chosen.size(), 2U);
  }
}

TEST(Scripts, WordsInEveryScript) {
  EXPECT_EQ(Words("Naïve CAFÉ, x-ray"), (std::vector<std::string>{"naïve", "café", "x", "ray"}));
  EXPECT_EQ(Words("Пользователь ОТПРАВЛЯЕТ"),
            (std::vector<std::string>{"пользователь", "отправляет"}));
  EXPECT_EQ(Words("我们使用的人民"), (std::vector<std::string>{"我们", "使用", "的", "人民"}));
  EXPECT_EQ(Words("これは最初の文です"),
            (std::vector<std::string>{"これ", "は", "最初", "の", "文", "です"}));
  // ASCII text: the same words as rouge-score's tokenizer.
  EXPECT_EQ(Words("The API's v2 (2024)"), AsciiWords("The API's v2 (2024)"));
  // Thai: ICU's dictionary words, each counted.
  const std::vector<std::string> thai = Words("ระบบนี้สรุปเอกสาร");
  EXPECT_EQ(thai, (std::vector<std::string>{"ระบบ", "นี้", "สรุป", "เอกสาร"}));
  EXPECT_EQ(CountWords("ระบบนี้สรุปเอกสาร"), 4);
  EXPECT_EQ(CountWords("ok ระบบนี้สรุปเอกสาร ok"), 6);
  EXPECT_TRUE(IsContentWord("naïve"));
  EXPECT_FALSE(IsContentWord("été"));
}

TEST(Scripts, HeadingsEndInALetterOfAnyScriptNotInPunctuation) {
  for (const char* heading : {"Введение", "개요", "Résumé", "Zürich", "บทนำ", "缓存设计"}) {
    EXPECT_TRUE(IsHeadingLine(heading)) << heading;
  }
  for (const char* line : {"Это всё…", "Он сказал «да»", "这是一句话。", "Sie sagte: „Ja“"}) {
    EXPECT_FALSE(IsHeadingLine(line)) << line;
  }
  // Thai: a space between two sentences makes the line no heading.
  EXPECT_FALSE(IsHeadingLine("ระบบนี้สรุปเอกสาร ผู้ใช้ส่งเอกสาร"));
}

}  // namespace
}  // namespace rpsum::model
