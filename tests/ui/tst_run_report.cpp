// `cohsim report`: a stored run's HTML report, written by the report tool on the offscreen platform with the
// Charts tab's own charts as SVG, is well-formed XML, carries the run's numbers, and escapes every user string.
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <nlohmann/json.hpp>

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
        QCOMPARE(svgs, 6); // TTFT and TPOT over time, CDFs, the TPOT split, links, kinds
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

    void anUnknownRunOrAFolderThatCannotTakeTheFileExitsTwo()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        QCOMPARE(cohsim({QStringLiteral("run"), QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json"),
                         QStringLiteral("--db"), db, QStringLiteral("-q")})
                     .exitCode,
                 0);
        const Ran unknown = cohsim({QStringLiteral("report"), QStringLiteral("7"), QStringLiteral("--db"), db,
                                    QStringLiteral("-o"), dir.filePath(QStringLiteral("r.html"))});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains(db.toUtf8()));
        const Ran unwritable = cohsim({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                       QStringLiteral("-o"), dir.filePath(QStringLiteral("no/such/folder/r.html"))});
        QCOMPARE(unwritable.exitCode, 2);
        QVERIFY2(unwritable.err.contains("cannot write the report"), unwritable.err.constData());
    }
};

QTEST_MAIN(RunReportTest)
#include "tst_run_report.moc"
