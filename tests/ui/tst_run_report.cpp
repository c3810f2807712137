// `cohsim report`: a stored run's HTML report, written by the report tool on the offscreen platform with the
// Charts tab's own charts as SVG, is well-formed XML, carries the run's numbers, and escapes every user string.
#include "ui/main_window.h"
#include "ui/report_export.h"
#include "ui/run_compare_dialog.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <nlohmann/json.hpp>

#include <cmath>
#include <vector>

namespace {

const QString kCohsim = QStringLiteral(COH_COHSIM_PATH);
const QString kHostile = QStringLiteral("<script>alert(1)</script> & co");

struct Ran {
    int exitCode = -1;
    QByteArray out, err;
};

Ran cohsim(const QStringList& args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY")); // a machine with no display
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    p.setProcessEnvironment(env);
    p.start(kCohsim, args);
    p.waitForFinished(120000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

// A database in `dir` holding one run of `scenario` (run 1), made by cohsim as a user would; empty if the run failed.
QString databaseWithOneRun(const QTemporaryDir& dir, const QString& scenario)
{
    const QString db = dir.filePath(QStringLiteral("runs.db"));
    return cohsim({QStringLiteral("run"), scenario, QStringLiteral("--db"), db, QStringLiteral("-q")}).exitCode == 0
               ? db
               : QString();
}

} // namespace

class RunReportTest : public QObject {
    Q_OBJECT
  private slots:
    void aReportIsWellFormedCarriesTheRunsNumbersAndEscapesNames()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        const Ran run =
            cohsim({QStringLiteral("run"), QStringLiteral(COH_DATASETS_DIR "/scenarios/default.json"),
                    QStringLiteral("--db"), db, QStringLiteral("--name"), kHostile, QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 0);
        const auto summary = nlohmann::json::parse(run.out.toStdString()).at("summary");
        const QString report = dir.filePath(QStringLiteral("report.html"));
        const Ran made = cohsim(
            {QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("-o"), report});
        QVERIFY2(made.exitCode == 0, made.err.constData());

        QFile file(report);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(file.readAll());
        // Well-formed: an XML parser reads it to the end.
        QXmlStreamReader xml(html);
        int svgs = 0, tables = 0;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                svgs += xml.name() == QLatin1String("svg");
                tables += xml.name() == QLatin1String("table");
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        // The topology; TTFT and TPOT over time, CDFs, the TPOT split, links, kinds, decode batches.
        QCOMPARE(svgs, 8);
        QVERIFY(tables >= 6);
        // The run's own numbers, as the summary has them.
        for (const char* metric : {"ttft_ms", "tpot_ms"})
            for (const char* p : {"p50", "p90", "p99"})
                QVERIFY2(html.contains(QString::number(summary.at(metric).at(p).get<double>(), 'f', 3)),
                         qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(metric), QLatin1String(p))));
        QVERIFY(html.contains(QStringLiteral("%1 of %1 completed").arg(summary.at("requests").get<int>())));
        // The name is text wherever it appears: escaped in the title and the heading, never markup.
        QVERIFY(!html.contains(QStringLiteral("<script")));
        QCOMPARE(html.count(QStringLiteral("&lt;script&gt;alert(1)&lt;/script&gt; &amp; co")), 2);
    }

    void theSameReportAsPdfAndMarkdown()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        const Ran run =
            cohsim({QStringLiteral("run"), QStringLiteral(COH_DATASETS_DIR "/scenarios/default.json"),
                    QStringLiteral("--db"), db, QStringLiteral("--name"), kHostile, QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 0);
        const auto summary = nlohmann::json::parse(run.out.toStdString()).at("summary");
        const QString ttftP99 = QString::number(summary.at("ttft_ms").at("p99").get<double>(), 'f', 3);

        // PDF: pages, and text a reader can select: the headline numbers and the name as written.
        const QString pdf = dir.filePath(QStringLiteral("report.pdf"));
        const Ran madePdf = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--format"),
                                    QStringLiteral("pdf"), QStringLiteral("--db"), db, QStringLiteral("-o"), pdf});
        QVERIFY2(madePdf.exitCode == 0, madePdf.err.constData());
        QVERIFY2(!madePdf.err.contains("propagateSizeHints"), madePdf.err.constData());
        QProcess info;
        info.start(QStringLiteral("pdfinfo"), {pdf});
        QVERIFY2(info.waitForFinished(30000) && info.exitCode() == 0,
                 "pdfinfo (poppler-utils; scripts/test installs it)");
        const QString infoText = QString::fromUtf8(info.readAllStandardOutput());
        const auto pages = QRegularExpression(QStringLiteral("Pages:\\s+(\\d+)")).match(infoText);
        QVERIFY2(pages.hasMatch() && pages.captured(1).toInt() >= 3, qPrintable(infoText));
        QProcess text;
        text.start(QStringLiteral("pdftotext"), {pdf, QStringLiteral("-")});
        QVERIFY(text.waitForFinished(30000) && text.exitCode() == 0);
        const QString pdfText = QString::fromUtf8(text.readAllStandardOutput());
        QVERIFY2(pdfText.contains(ttftP99), qPrintable(ttftP99));
        QVERIFY(pdfText.contains(kHostile));
        QVERIFY(pdfText.contains(QStringLiteral("Staleness and failures"))); // the last section: every page drawn

        // Markdown: tables of the same numbers, the charts as SVG files beside it, the name escaped.
        const QString md = dir.filePath(QStringLiteral("report.md"));
        const Ran madeMd = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--format"),
                                   QStringLiteral("md"), QStringLiteral("--db"), db, QStringLiteral("-o"), md});
        QVERIFY2(madeMd.exitCode == 0, madeMd.err.constData());
        QFile file(md);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString markdown = QString::fromUtf8(file.readAll());
        QVERIFY(markdown.contains(QStringLiteral("| TTFT | %1 |").arg(summary.at("ttft_ms").at("count").get<int>())));
        QVERIFY(markdown.contains(ttftP99));
        QVERIFY(markdown.startsWith(QStringLiteral("# \\<script\\>alert\\(1\\)\\</script\\> \\& co\n")));
        for (int chart = 1; chart <= 8; ++chart) {
            const QString name = QStringLiteral("report-files/chart-%1.svg").arg(chart);
            QVERIFY2(markdown.contains(QStringLiteral("](%1)").arg(name)), qPrintable(name));
            QFile svg(dir.filePath(name));
            QVERIFY2(svg.open(QIODevice::ReadOnly) && svg.readAll().contains("<svg"), qPrintable(name));
        }

        // Without --format the file's name says which: a .pdf is a PDF, a .MD Markdown, anything else HTML.
        const auto startOf = [&](const QString& name) {
            const Ran made = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                     QStringLiteral("-o"), dir.filePath(name)});
            QFile written(dir.filePath(name));
            return made.exitCode == 0 && written.open(QIODevice::ReadOnly) ? written.read(15) : QByteArray();
        };
        QCOMPARE(startOf(QStringLiteral("named.pdf")).left(5), QByteArray("%PDF-"));
        QCOMPARE(startOf(QStringLiteral("named.MD")).left(2), QByteArray("# "));
        QCOMPARE(startOf(QStringLiteral("named.report")), QByteArray("<!DOCTYPE html>"));
    }

    void aComparisonSectionPutsCompareVerdictsAndOverlaidCdfsFirst()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        for (const char* protocol : {"msi-directory", "lazy-causal"})
            QCOMPARE(
                cohsim({QStringLiteral("run"), QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"),
                        QStringLiteral("--set"), QStringLiteral("/coherence/decode=%1").arg(QLatin1String(protocol)),
                        QStringLiteral("--db"), db, QStringLiteral("-q")})
                    .exitCode,
                0);
        const QString report = dir.filePath(QStringLiteral("compare.html"));
        const Ran made = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--compare"),
                                 QStringLiteral("2"), QStringLiteral("--db"), db, QStringLiteral("-o"), report});
        QVERIFY2(made.exitCode == 0, made.err.constData());
        QFile file(report);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(file.readAll());
        QXmlStreamReader xml(html);
        int svgs = 0;
        while (!xml.atEnd())
            svgs += xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("svg");
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QCOMPARE(svgs, 10); // the run's eight, and TTFT and TPOT of both runs overlaid
        QVERIFY(html.contains(QStringLiteral("<h2>Comparison of runs #1, #2</h2>")));
        QVERIFY(html.contains(QStringLiteral("lazy-causal")));
        QVERIFY(html.contains(QStringLiteral("about the same")) || html.contains(QStringLiteral("worse")) ||
                html.contains(QStringLiteral("better")));
        // The comparison comes before the run's own scenario.
        QVERIFY(html.indexOf(QStringLiteral("Comparison of runs")) < html.indexOf(QStringLiteral("<h2>Scenario</h2>")));
        const Ran unknown = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--compare"),
                                    QStringLiteral("5"), QStringLiteral("--db"), db, QStringLiteral("-o"), report});
        QCOMPARE(unknown.exitCode, 2);
    }

    void aRealRunComparedWithAnUnrelatedSimulatedOneIsNoSimulatorError()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        for (const char* backend : {"real-cpu", "simulated"})
            QCOMPARE(cohsim({QStringLiteral("run"), QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"),
                             QStringLiteral("--backend"), QLatin1String(backend), QStringLiteral("--max-requests"),
                             QStringLiteral("4"), QStringLiteral("--db"), db, QStringLiteral("-q")})
                         .exitCode,
                     0);
        const QString report = dir.filePath(QStringLiteral("simreal.html"));
        const Ran made = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--compare"),
                                 QStringLiteral("2"), QStringLiteral("--db"), db, QStringLiteral("-o"), report});
        QVERIFY2(made.exitCode == 0, made.err.constData());
        QFile file(report);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(file.readAll());
        // The simulated run does not model the real one (it stands for the scenario's hardware): the report says so,
        // as Compare does, and shows no simulator's error between them (compare-real's twins below do).
        QVERIFY(html.contains(QStringLiteral("These runs ran on different backends (real-cpu, simulated)")));
        QVERIFY(!html.contains(QStringLiteral("Simulator against real execution")));

        // The real run's own report says what ran it, as History does: its K/V rows, costs and mapping; and its
        // links' bytes and rate, with no share of the scenario's link bandwidths its copies never used.
        const QString markdown = dir.filePath(QStringLiteral("real.md"));
        const Ran own = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                QStringLiteral("-o"), markdown});
        QVERIFY2(own.exitCode == 0, own.err.constData());
        QFile md(markdown);
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(md.readAll());
        for (const char* part : {"## Backend", "real-cpu: ", "| K/V carried | ", "| Decode attention | ",
                                 "| Own costs | ", "| node | ran on |", "| link | direction | bytes | mean rate |"})
            QVERIFY2(text.contains(QLatin1String(part)), part);
        QVERIFY(!text.contains(QStringLiteral("utilisation")));
    }

    void compareRealsTwinsShowTheSimulatorsErrorInEachOthersReport()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        const QString profile = dir.filePath(QStringLiteral("profile.json"));
        QCOMPARE(cohsim({QStringLiteral("calibrate"), QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"),
                         QStringLiteral("--rounds"), QStringLiteral("2"), QStringLiteral("-o"), profile})
                     .exitCode,
                 0);
        const Ran compared =
            cohsim({QStringLiteral("compare-real"), QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"),
                    QStringLiteral("--profile"), profile, QStringLiteral("--max-requests"), QStringLiteral("4"),
                    QStringLiteral("--arena-mib"), QStringLiteral("8"), QStringLiteral("--real-routes"),
                    QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(compared.exitCode == 0, compared.err.constData());
        const auto out = nlohmann::json::parse(compared.out.toStdString());
        const QString title = QStringLiteral("Simulator against real execution: #%1 (real-cpu) and #%2 (simulated)")
                                  .arg(out.at("real_run_id").get<int>())
                                  .arg(out.at("simulated_run_id").get<int>());
        for (const char* id : {"real_run_id", "simulated_run_id"}) {
            const QString report = dir.filePath(QStringLiteral("%1.html").arg(QLatin1String(id)));
            const Ran made = cohsim({QStringLiteral("report"), QString::number(out.at(id).get<int>()),
                                     QStringLiteral("--db"), db, QStringLiteral("-o"), report});
            QVERIFY2(made.exitCode == 0, made.err.constData());
            QFile file(report);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QString html = QString::fromUtf8(file.readAll());
            QVERIFY2(html.contains(title), id);
            // The model says it routed each request as the real run did (compare-real --real-routes): a prefill and
            // a decode for each of 4 requests.
            QCOMPARE(html.contains(QStringLiteral("Routes: routed as the real run it models did: 8 of 8 routing "
                                                  "decisions as the real run made them")),
                     std::string(id) == "simulated_run_id");
            // The rows are compare-real's own: its TPOT p50, real and simulated.
            const auto& tpot = out.at("metrics").at(2);
            QCOMPARE(QString::fromStdString(tpot.at("metric").get<std::string>()), QStringLiteral("TPOT p50 (ms)"));
            QVERIFY2(
                html.contains(
                    QStringLiteral("<td>%1</td>").arg(QString::number(tpot.at("simulated").get<double>(), 'g', 6))),
                id);
            // Beside it, what compare-real kept with the pair: the error on the real run's own costs and its range
            // with the costs moved, as compare-real printed them, in TPOT p50's row.
            QVERIFY2(html.contains(QStringLiteral("<th>error %</th><th>error % on own costs</th><th>error % at costs "
                                                  "±5%</th>")),
                     id);
            const auto& range = tpot.at("moved_costs_error_pct");
            const QString row =
                QStringLiteral("<tr><td>TPOT p50 (ms)</td><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5 to %6</td>"
                               "</tr>")
                    .arg(QString::number(tpot.at("real").get<double>(), 'g', 6),
                         QString::number(tpot.at("simulated").get<double>(), 'g', 6),
                         QString::number(tpot.at("error_pct").get<double>(), 'f', 1),
                         QString::number(tpot.at("own_costs_error_pct").get<double>(), 'f', 1),
                         QString::number(range.at(0).get<double>(), 'f', 1),
                         QString::number(range.at(1).get<double>(), 'f', 1));
            QVERIFY2(html.contains(row), qPrintable(row));
            // A count: `equal` on own costs where it is, and a range of none where no cost moved it.
            const auto& messages = out.at("metrics").at(6);
            QCOMPARE(QString::fromStdString(messages.at("metric").get<std::string>()), QStringLiteral("messages"));
            const auto& moved = messages.at("moved_costs_error_pct");
            const double realCount = messages.at("real").get<double>();
            const QString countRow =
                QStringLiteral("<tr><td>messages</td><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                    .arg(QString::number(realCount, 'g', 6),
                         QString::number(messages.at("simulated").get<double>(), 'g', 6),
                         QString::number(messages.at("error_pct").get<double>(), 'f', 1),
                         messages.at("own_costs_simulated").get<double>() == realCount
                             ? QStringLiteral("equal")
                             : QString::number(messages.at("own_costs_simulated").get<double>(), 'g', 6),
                         moved.at(0).get<double>() == 0 && moved.at(1).get<double>() == 0
                             ? QStringLiteral("none")
                             : QStringLiteral("%1 to %2")
                                   .arg(QString::number(moved.at(0).get<double>(), 'f', 1),
                                        QString::number(moved.at(1).get<double>(), 'f', 1)));
            QVERIFY2(html.contains(countRow), qPrintable(countRow));
            // And a note says what the two columns are.
            QVERIFY2(html.contains(QStringLiteral("error % at costs ±5% is its range with every calibrated cost moved "
                                                  "2.5% and 5% either way")),
                     id);
        }
    }

    // compare-real --repeat's pairs, reported together: the comparison reads them as compare-real printed them (each
    // side's median, the median of the pairs' errors) and gives each pair's own table.
    void compareRealsPairsReportTheMedianOfTheirErrorsAsCompareRealPrintsIt()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        const Ran compared = cohsim(
            {QStringLiteral("compare-real"), QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"),
             QStringLiteral("--repeat"), QStringLiteral("2"), QStringLiteral("--max-requests"), QStringLiteral("4"),
             QStringLiteral("--arena-mib"), QStringLiteral("8"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(compared.exitCode == 0, compared.err.constData());
        const auto out = nlohmann::json::parse(compared.out.toStdString());
        const auto reals = out.at("real_run_ids").get<std::vector<int>>();
        const auto models = out.at("simulated_run_ids").get<std::vector<int>>();
        QCOMPARE(reals.size(), std::size_t(2));
        const QString report = dir.filePath(QStringLiteral("pairs.html"));
        // Listed in another order than the pairs': the real runs still lead.
        const Ran made = cohsim({QStringLiteral("report"), QString::number(models[0]), QStringLiteral("--compare"),
                                 QString::number(reals[1]), QString::number(reals[0]), QString::number(models[1]),
                                 QStringLiteral("--db"), db, QStringLiteral("-o"), report});
        QVERIFY2(made.exitCode == 0, made.err.constData());
        QFile file(report);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(file.readAll());
        QVERIFY2(html.contains(QStringLiteral("#%1, #%2 real-cpu (median of 2 runs)").arg(reals[1]).arg(reals[0])),
                 qPrintable(html.left(4000)));
        // compare-real's own error for TTFT p50, to the digit both print.
        const auto& ttft = out.at("metrics").at(0);
        QCOMPARE(QString::fromStdString(ttft.at("metric").get<std::string>()), QStringLiteral("TTFT p50 (ms)"));
        const double error = ttft.at("error_pct").get<double>();
        const QRegularExpression said(QStringLiteral("the median of its errors in 2 pairs \\(each real run against "
                                                     "the simulated run that models it\\): TTFT p50 ([−+])([0-9.]+)%"));
        const QRegularExpressionMatch match = said.match(html);
        QVERIFY2(match.hasMatch(), qPrintable(html.left(4000)));
        const double shown = (match.captured(1) == QStringLiteral("−") ? -1 : 1) * match.captured(2).toDouble();
        // To the digit shown (a last-digit tie may round either way: the two divide in another order).
        QVERIFY2(std::fabs(shown - error) <= 0.05 + 1e-9,
                 qPrintable(QStringLiteral("%1 against %2").arg(shown).arg(error)));
        for (std::size_t p = 0; p < 2; ++p)
            QVERIFY(html.contains(QStringLiteral("Simulator against real execution: #%1 (real-cpu) and #%2 (simulated)")
                                      .arg(reals[p])
                                      .arg(models[p])));
    }

    void aStudysParetoFrontIsReadBackFromTheDatabase()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        const nlohmann::json study = {
            {"name", "small"},
            {"scenario", std::string(COH_TEST_DATA_DIR) + "/scenarios/minimal.json"},
            {"parameters",
             {{{"field", "/coherence/decode"}, {"values", {"msi-directory", "lazy-causal", "sealed-lease"}}},
              {{"field", "/serving/block_tokens"}, {"values", {16, 32}}}}},
            {"objectives", {"tpot_p99_ms", "coherence_bytes_per_token"}},
        };
        const QString studyFile = dir.filePath(QStringLiteral("small.json"));
        QFile out(studyFile);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QByteArray::fromStdString(study.dump()));
        out.close();
        const Ran tuned =
            cohsim({QStringLiteral("tune"), studyFile, QStringLiteral("--json"), QStringLiteral("--db"), db});
        QCOMPARE(tuned.exitCode, 0);
        const auto result = nlohmann::json::parse(tuned.out.toStdString());
        const int studyId = result.at("study_id").get<int>();
        const auto front = result.at("front");
        const QString report = dir.filePath(QStringLiteral("study.html"));
        const Ran made = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--study"),
                                 QString::number(studyId), QStringLiteral("--db"), db, QStringLiteral("-o"), report});
        QVERIFY2(made.exitCode == 0, made.err.constData());
        QFile file(report);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(file.readAll());
        QVERIFY(html.contains(QStringLiteral("<h2>Study #%1: small</h2>").arg(studyId)));
        // The same front as the tuner found: its size and each of its runs.
        QVERIFY2(html.contains(
                     QStringLiteral("6 points, 6 meeting the constraints, %1 on the Pareto front").arg(front.size())),
                 qPrintable(html.mid(html.indexOf(QStringLiteral("Study #")), 300)));
        for (const auto& index : front) // indices into the points
            QVERIFY(html.contains(QStringLiteral("<td>#%1</td>")
                                      .arg(result.at("points").at(index.get<std::size_t>()).at("run_id").get<int>())));
        const Ran unknown = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--study"),
                                    QStringLiteral("9"), QStringLiteral("--db"), db, QStringLiteral("-o"), report});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains("there is no study 9"));

        // A capacity study: its points are the runs the searches chose, with the capacities they found.
        nlohmann::json capacity = study;
        capacity["name"] = "capacity";
        capacity["objectives"] = {"capacity_at_slo", "coherence_bytes_per_token"};
        capacity["capacity"] = {{"field", "/workload/arrival/rate"}, {"min", 0.5}, {"max", 400}};
        QFile capacityOut(studyFile);
        QVERIFY(capacityOut.open(QIODevice::WriteOnly | QIODevice::Truncate));
        capacityOut.write(QByteArray::fromStdString(capacity.dump()));
        capacityOut.close();
        const Ran searched =
            cohsim({QStringLiteral("tune"), studyFile, QStringLiteral("--json"), QStringLiteral("--db"), db});
        QVERIFY2(searched.exitCode == 0, searched.err.constData());
        const auto found = nlohmann::json::parse(searched.out.toStdString());
        const QString capacityReport = dir.filePath(QStringLiteral("capacity.html"));
        const Ran capacityMade = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--study"),
                                         QString::number(found.at("study_id").get<int>()), QStringLiteral("--db"), db,
                                         QStringLiteral("-o"), capacityReport});
        QVERIFY2(capacityMade.exitCode == 0, capacityMade.err.constData());
        QFile capacityFile(capacityReport);
        QVERIFY(capacityFile.open(QIODevice::ReadOnly));
        const QString capacityHtml = QString::fromUtf8(capacityFile.readAll());
        QVERIFY2(capacityHtml.contains(QStringLiteral("6 points, 6 meeting the constraints, %1 on the Pareto front")
                                           .arg(found.at("front").size())),
                 qPrintable(capacityHtml.mid(capacityHtml.indexOf(QStringLiteral("Study #")), 300)));
        for (const auto& index : found.at("front")) {
            const auto& point = found.at("points").at(index.get<std::size_t>());
            QVERIFY(capacityHtml.contains(QStringLiteral("<td>#%1</td>").arg(point.at("run_id").get<int>())));
            // Its capacity, as the tuner found it.
            QVERIFY2(capacityHtml.contains(
                         QStringLiteral("<td>%1</td>")
                             .arg(QString::number(point.at("metrics").at("capacity_at_slo").get<double>(), 'g', 6))),
                     qPrintable(QString::fromStdString(point.dump())));
        }
    }

    void fileExportReportWritesTheRunShown()
    {
        QTemporaryDir dir;
        const QString db = databaseWithOneRun(dir, QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"));
        QVERIFY(!db.isEmpty());
        coh::ui::MainWindow window(db);
        auto* action = window.findChild<QAction*>(QStringLiteral("exportReport"));
        QVERIFY(action);
        QVERIFY(!action->isEnabled()); // no run shown yet
        window.openRun(1);
        QTRY_VERIFY(action->isEnabled());
        // What the action writes once a file is chosen: the run's report, here as PDF and as HTML.
        for (const QString& format : {QStringLiteral("pdf"), QStringLiteral("html")}) {
            const QString path = dir.filePath(QStringLiteral("report.") + format);
            QString error;
            QVERIFY2(coh::ui::exportReport(db, 1, format, path, &error), qPrintable(error));
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray bytes = file.readAll();
            QVERIFY(format == QLatin1String("pdf") ? bytes.startsWith("%PDF") : bytes.contains("<svg"));
        }
        QString error;
        QVERIFY(!coh::ui::exportReport(db, 9, QStringLiteral("html"), dir.filePath(QStringLiteral("x.html")), &error));
        QVERIFY(error.contains(QStringLiteral("#9")));

        // The app's own path: read off the GUI thread behind a progress dialog, written, then finished(true).
        const QString async = dir.filePath(QStringLiteral("async.pdf"));
        auto* job = coh::ui::ReportExport::start(&window, db, 1, QStringLiteral("pdf"), async);
        QSignalSpy done(job, &coh::ui::ReportExport::finished);
        QVERIFY(job->progress());
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QCOMPARE(done.at(0).at(0).toBool(), true);
        QCOMPARE(done.at(0).at(1).toString(), async);
        QVERIFY(QFile(async).size() > 1000);
        // An unknown run ends with the store's reason; Cancel ends at once, and no file appears afterwards.
        auto* unknown =
            coh::ui::ReportExport::start(&window, db, 9, QStringLiteral("html"), async + QStringLiteral(".html"));
        QSignalSpy failed(unknown, &coh::ui::ReportExport::finished);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QCOMPARE(failed.at(0).at(0).toBool(), false);
        QVERIFY(failed.at(0).at(2).toString().contains(QStringLiteral("#9")));
        const QString cancelled = dir.filePath(QStringLiteral("cancelled.html"));
        auto* dropped = coh::ui::ReportExport::start(&window, db, 1, QStringLiteral("html"), cancelled);
        QSignalSpy ended(dropped, &coh::ui::ReportExport::finished);
        dropped->cancel();
        QCOMPARE(ended.count(), 1);
        QCOMPARE(ended.at(0).at(0).toBool(), false);
        QVERIFY(ended.at(0).at(2).toString().isEmpty());
        QTest::qWait(1500); // the read it started ends on its own; nothing is written
        QVERIFY(!QFile::exists(cancelled));

        // History's Compare offers the same report with the comparison once it knows the database.
        QCOMPARE(cohsim({QStringLiteral("run"), QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"),
                         QStringLiteral("--set"), QStringLiteral("/coherence/decode=lazy-causal"),
                         QStringLiteral("--db"), db, QStringLiteral("-q")})
                     .exitCode,
                 0);
        coh::ui::RunCompareDialog compare(db, {1, 2});
        QVERIFY(compare.exportReportButton()->isHidden());
        compare.setDatabasePath(db);
        QVERIFY(!compare.exportReportButton()->isHidden());
        const QString compared = dir.filePath(QStringLiteral("compared.html"));
        QVERIFY2(coh::ui::exportReport(db, 1, QStringLiteral("html"), compared, &error, {2}), qPrintable(error));
        QFile file(compared);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("<h2>Comparison of runs #1, #2</h2>"));
    }

    void anUnknownRunOrAFolderThatCannotTakeTheFileExitsTwo()
    {
        QTemporaryDir dir;
        const QString db = databaseWithOneRun(dir, QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"));
        QVERIFY(!db.isEmpty());
        const Ran unknown = cohsim({QStringLiteral("report"), QStringLiteral("7"), QStringLiteral("--db"), db,
                                    QStringLiteral("-o"), dir.filePath(QStringLiteral("r.html"))});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains(db.toUtf8()));
        // A run to compare with that is not there is named by its option, not as the report's own run.
        const Ran unknownOther =
            cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--compare"), QStringLiteral("99"),
                    QStringLiteral("--db"), db, QStringLiteral("-o"), dir.filePath(QStringLiteral("r.html"))});
        QCOMPARE(unknownOther.exitCode, 2);
        QVERIFY2(unknownOther.err.contains("--compare: there is no run with id 99"), unknownOther.err.constData());
        // Every format alike (Markdown used to create the folders, HTML and PDF to fail), before the tool runs.
        for (const char* name : {"no/such/folder/r.html", "no/such/folder/r.md", "no/such/folder/r.pdf"}) {
            const Ran unwritable = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                           QStringLiteral("-o"), dir.filePath(QString::fromLatin1(name))});
            QCOMPARE(unwritable.exitCode, 2);
            QVERIFY2(unwritable.err.contains("its folder") && unwritable.err.contains("does not exist"),
                     unwritable.err.constData());
            QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("no"))));
        }
        const Ran study = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                  QStringLiteral("--study"), QStringLiteral("abc"), QStringLiteral("-o"),
                                  dir.filePath(QStringLiteral("r.html"))});
        QCOMPARE(study.exitCode, 2);
        QVERIFY2(study.err.contains("--study: 'abc' is not a study id"), study.err.constData());
    }

    // A disk that fills while the report is written (/dev/full fails every write with ENOSPC): every format exits 2
    // saying so, where the PDF used to say it was written; and nothing of Qt's own (QPainter, the runtime folder of
    // a session without XDG_RUNTIME_DIR) comes before the error.
    void aDiskThatFillsFailsTheReportInEveryFormatWithItsReason()
    {
        if (!QFileInfo::exists(QStringLiteral("/dev/full")))
            QSKIP("no /dev/full on this machine");
        QTemporaryDir dir;
        const QString db = databaseWithOneRun(dir, QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"));
        QVERIFY(!db.isEmpty());
        qunsetenv("XDG_RUNTIME_DIR"); // cohsim() passes this process's environment on
        for (const char* format : {"html", "pdf"}) {
            const Ran full = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                     QStringLiteral("--format"), QString::fromLatin1(format), QStringLiteral("-o"),
                                     QStringLiteral("/dev/full")});
            QCOMPARE(full.exitCode, 2);
            QVERIFY2(full.err.startsWith("error: /dev/full: -o: cannot write the report") &&
                         full.err.contains("No space left on device"),
                     full.err.constData());
        }
    }

    // A disk that fills part-way through (a file size limit plays it: writes past it fail, as on a full disk): every
    // format exits 2 and the report that was there before is left whole, with nothing half-written beside it, where it
    // used to be replaced by the bytes that fit. A report to /dev/stdout redirected with `>>` is appended to the file;
    // a Markdown one, whose charts need a folder beside it, is refused.
    void aReportCutShortLeavesTheEarlierOneAndStdoutAppends()
    {
        QTemporaryDir dir;
        const QString db = databaseWithOneRun(dir, QStringLiteral(COH_DATASETS_DIR "/scenarios/default.json"));
        QVERIFY(!db.isEmpty());
        const auto shell = [](const QString& command) {
            QProcess p;
            p.start(QStringLiteral("bash"), {QStringLiteral("-c"), command});
            p.waitForFinished(120000);
            return Ran{p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
        };
        for (const char* format : {"html", "pdf"}) {
            const QString report = dir.filePath(QStringLiteral("report.") + QLatin1String(format));
            QFile earlier(report);
            QVERIFY(earlier.open(QIODevice::WriteOnly));
            earlier.write("the earlier report\n");
            earlier.close();
            // 200 KiB: the database is only read; the report is larger (HTML about 0.7 MB, PDF 1 MB).
            const Ran cut = shell(
                QStringLiteral("trap '' XFSZ; ulimit -f 200; exec %1 report 1 --db %2 -o %3").arg(kCohsim, db, report));
            QCOMPARE(cut.exitCode, 2);
            QVERIFY2(cut.err.contains("cannot write the report") && cut.err.contains("could be written"),
                     cut.err.constData());
            QVERIFY(earlier.open(QIODevice::ReadOnly));
            QCOMPARE(earlier.readAll(), QByteArray("the earlier report\n"));
            earlier.close();
        }
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 3); // the database and the two earlier reports

        const QString log = dir.filePath(QStringLiteral("log"));
        const Ran appended =
            shell(QStringLiteral("echo first > %1; %2 report 1 --db %3 -o /dev/stdout >> %1").arg(log, kCohsim, db));
        QVERIFY2(appended.exitCode == 0, appended.err.constData());
        QFile written(log);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.read(21), QByteArray("first\n<!DOCTYPE html>"));
        const Ran markdown = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                     QStringLiteral("--format"), QStringLiteral("md"), QStringLiteral("-o"),
                                     QStringLiteral("/dev/stdout")});
        QCOMPARE(markdown.exitCode, 2);
        QVERIFY2(markdown.err.contains("has no folder to hold them"), markdown.err.constData());
    }
};

QTEST_MAIN(RunReportTest)
#include "tst_run_report.moc"
