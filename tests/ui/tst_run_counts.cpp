// One vocabulary for a run's traffic (core/engine/traffic_counts.h), checked where people read it: for one run,
// the messages, flows, data/control messages, write-backs and invalidations that cohsim prints (--json and the
// summary text of `runs show`) are the numbers the History table, the Compare dialog and the Replay legend
// show. And a run stored before the vocabulary (its "messages" were flows) shows the same right numbers.
#include "core/engine/traffic_counts.h"
#include "core/store/run_store.h"
#include "ui/message_roles.h"
#include "ui/replay_legend.h"
#include "ui/run_compare_dialog.h"
#include "ui/run_compare_model.h"
#include "ui/run_history_model.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace coh;

namespace {

const QString kDefaultScenario = QStringLiteral(COH_TEST_DATA_DIR "/../../datasets/scenarios/default.json");

QByteArray cohsim(const QStringList& arguments)
{
    QProcess process;
    process.start(QStringLiteral(COH_COHSIM_PATH), arguments);
    if (!process.waitForFinished(120'000) || process.exitCode() != 0)
        qWarning("cohsim %s failed: %s", qPrintable(arguments.join(QLatin1Char(' '))),
                 process.readAllStandardError().constData());
    return process.readAllStandardOutput();
}

// What the run's legend says a role counts: "writeback (17021)" -> 17021.
qulonglong legendCount(const ui::ReplayLegend& legend, ui::MessageRole role)
{
    const auto match =
        QRegularExpression(QStringLiteral("\\((\\d+)\\)$")).match(legend.roleText(static_cast<int>(role)));
    return match.hasMatch() ? match.captured(1).toULongLong() : 0;
}

struct Figures {
    qulonglong messages = 0, flows = 0, dataMessages = 0, controlMessages = 0, writebacks = 0, invalidations = 0;
};

// The counts of `runs show`'s summary text: "traffic  N messages (D data, C control) in F network flows; ..." and
// "coherence  I invalidations, U upgrades, W write-backs, ...".
Figures fromSummaryText(const QString& text)
{
    Figures f;
    const auto traffic =
        QRegularExpression(
            QStringLiteral("traffic\\s+(\\d+) messages \\((\\d+) data, (\\d+) control\\) in (\\d+) network flows"))
            .match(text);
    const auto coherence =
        QRegularExpression(QStringLiteral("coherence\\s+(\\d+) invalidations, \\d+ upgrades, (\\d+) write-backs"))
            .match(text);
    if (traffic.hasMatch()) {
        f.messages = traffic.captured(1).toULongLong();
        f.dataMessages = traffic.captured(2).toULongLong();
        f.controlMessages = traffic.captured(3).toULongLong();
        f.flows = traffic.captured(4).toULongLong();
    }
    if (coherence.hasMatch()) {
        f.invalidations = coherence.captured(1).toULongLong();
        f.writebacks = coherence.captured(2).toULongLong();
    }
    return f;
}

} // namespace

class TstRunCounts : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("runs.db"));
    }

    void everyViewShowsTheCliNumbers()
    {
        // Two runs of the default scenario, so Compare has two columns: MSI and lazy-causal.
        QFile in(kDefaultScenario);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QString lazyPath = m_dir.filePath(QStringLiteral("lazy.json"));
        QFile lazy(lazyPath);
        QVERIFY(lazy.open(QIODevice::WriteOnly));
        lazy.write(in.readAll().replace("\"decode\": \"msi-directory\"", "\"decode\": \"lazy-causal\""));
        lazy.close();
        QList<qint64> ids;
        QList<QJsonObject> cli;
        for (const QString& scenario : {kDefaultScenario, lazyPath}) {
            const auto json =
                QJsonDocument::fromJson(
                    cohsim({QStringLiteral("run"), scenario, QStringLiteral("--max-requests"), QStringLiteral("150"),
                            QStringLiteral("--db"), m_db, QStringLiteral("--json"), QStringLiteral("-q")}))
                    .object();
            QVERIFY(json.contains(QStringLiteral("run_id")));
            ids << json.value(QStringLiteral("run_id")).toInteger();
            cli << json.value(QStringLiteral("summary")).toObject();
        }

        ui::RunHistoryModel history;
        history.setDatabasePath(m_db);
        ui::RunCompareDialog compare(m_db, ids);
        const ui::RunCompareModel* table = compare.model();
        QCOMPARE(table->runCount(), 2);
        core::RunStore store(m_db.toStdString());

        for (int i = 0; i < 2; ++i) {
            const QJsonObject& s = cli[i];
            const auto count = [&](const char* key) {
                return static_cast<qulonglong>(s.value(QLatin1String(key)).toInteger());
            };
            const Figures json{count("messages"),         count("flows"),      count("data_messages"),
                               count("control_messages"), count("writebacks"), count("invalidations")};
            QVERIFY(json.messages > json.flows); // the vocabulary's point: they are different things
            QCOMPARE(json.dataMessages + json.controlMessages, json.messages);

            // cohsim's summary text.
            const Figures text =
                fromSummaryText(QString::fromUtf8(cohsim({QStringLiteral("runs"), QStringLiteral("show"),
                                                          QString::number(ids[i]), QStringLiteral("--db"), m_db})));
            QCOMPARE(text.messages, json.messages);
            QCOMPARE(text.flows, json.flows);
            QCOMPARE(text.dataMessages, json.dataMessages);
            QCOMPARE(text.controlMessages, json.controlMessages);
            QCOMPARE(text.writebacks, json.writebacks);
            QCOMPARE(text.invalidations, json.invalidations);

            // History.
            const int row = history.rowOfRun(ids[i]);
            QCOMPARE(history.index(row, ui::RunHistoryModel::Messages).data(Qt::EditRole).toULongLong(), json.messages);
            QCOMPARE(history.index(row, ui::RunHistoryModel::Flows).data(Qt::EditRole).toULongLong(), json.flows);

            // Compare.
            const auto compared = [&](const char* label) {
                const int r = table->rowOf(QString::fromLatin1(label));
                return static_cast<qulonglong>(
                    table->index(r, table->valueColumn(i)).data(ui::RunCompareModel::ValueRole).toDouble());
            };
            QCOMPARE(compared("Messages"), json.messages);
            QCOMPARE(compared("Network flows"), json.flows);
            QCOMPARE(compared("Data messages"), json.dataMessages);
            QCOMPARE(compared("Control messages"), json.controlMessages);
            QCOMPARE(compared("Write-backs"), json.writebacks);
            QCOMPARE(compared("Invalidations"), json.invalidations);

            // The Replay legend: its roles add up to the messages, its writeback role is the write-backs.
            ui::ReplayLegend legend;
            legend.setSummary(store.loadRun(ids[i]).summary);
            qulonglong sum = 0;
            for (ui::MessageRole role : ui::allMessageRoles())
                sum += legendCount(legend, role);
            QCOMPARE(sum, json.messages);
            QCOMPARE(legendCount(legend, ui::MessageRole::Writeback), json.writebacks);
            QCOMPARE(legendCount(legend, ui::MessageRole::Invalidation), json.invalidations);
        }
        // MSI writes back on every downgrade; lazy-causal sends Updates home: both show as write-backs.
        QVERIFY(cli[0].value(QStringLiteral("writebacks")).toInteger() > 0);
    }

    void aRunStoredBeforeTheVocabularyShowsRight()
    {
        // A completed run whose row an older cohsim wrote: summary_json from tests/data/runs/ (12,983 flows stored
        // as "messages"; 17,021 write-backs inside "Data"), messages_total the flows.
        const QByteArray out = cohsim({QStringLiteral("run"), kDefaultScenario, QStringLiteral("--db"), m_db,
                                       QStringLiteral("--json"), QStringLiteral("-q")});
        const qint64 id = QJsonDocument::fromJson(out).object().value(QStringLiteral("run_id")).toInteger();
        QFile fixture(QStringLiteral(COH_TEST_DATA_DIR "/runs/legacy-msi-summary.json"));
        QVERIFY(fixture.open(QIODevice::ReadOnly));
        {
            SQLite::Database db(m_db.toStdString(), SQLite::OPEN_READWRITE);
            SQLite::Statement update(db, "UPDATE runs SET summary_json = ?, messages_total = 12983 WHERE id = ?");
            update.bind(1, fixture.readAll().toStdString());
            update.bind(2, static_cast<std::int64_t>(id));
            QCOMPARE(update.exec(), 1);
        }
        ui::RunHistoryModel history;
        history.setDatabasePath(m_db);
        const int row = history.rowOfRun(id);
        QCOMPARE(history.index(row, ui::RunHistoryModel::Messages).data(Qt::EditRole).toULongLong(), 112836ull);
        QCOMPARE(history.index(row, ui::RunHistoryModel::Flows).data(Qt::EditRole).toULongLong(), 12983ull);

        ui::RunCompareDialog compare(m_db, {id});
        const ui::RunCompareModel* table = compare.model();
        const auto compared = [&](const char* label) {
            return table->index(table->rowOf(QString::fromLatin1(label)), table->valueColumn(0))
                .data(ui::RunCompareModel::ValueRole)
                .toDouble();
        };
        QCOMPARE(compared("Messages"), 112836.0);
        QCOMPARE(compared("Network flows"), 12983.0);
        QCOMPARE(compared("Write-backs"), 17021.0);

        ui::ReplayLegend legend;
        legend.setSummary(core::RunStore(m_db.toStdString()).loadRun(id).summary);
        QCOMPARE(legendCount(legend, ui::MessageRole::Writeback), 17021ull);
    }

  private:
    QTemporaryDir m_dir;
    QString m_db;
};

QTEST_MAIN(TstRunCounts)
#include "tst_run_counts.moc"
