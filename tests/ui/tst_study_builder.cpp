// Building a study in the GUI: "Vary in a Study…" on a scenario field adds it to the Tuner's draft with values
// guessed from the scenario, the New Study dialog edits fields, objectives, constraints and strategy, and Run
// writes a study file that core checks (its problems shown in the dialog) and runs like an opened one. The
// scatter shades where the shown metrics meet their SLOs.
#include "core/tune/study_parser.h"
#include "ui/field_edit.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "ui/study_builder_dialog.h"
#include "ui/study_draft.h"
#include "ui/tuner_panel.h"

#include <QAction>
#include <QApplication>
#include <QAreaSeries>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QLabel>
#include <QLineSeries>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <nlohmann/json.hpp>

using namespace coh;

namespace {

const QString kMinimal = QStringLiteral(COH_TEST_DATA_DIR "/scenarios/minimal.json");

// Chooses "Vary in a Study…" in the context menu that `open` pops up.
bool chooseVary(const std::function<void()>& open)
{
    bool chosen = false;
    QTimer::singleShot(0, [&chosen] {
        auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        if (!menu)
            return;
        if (auto* vary = menu->findChild<QAction*>(QStringLiteral("varyInStudy"))) {
            vary->trigger();
            chosen = true;
        }
        menu->close();
    });
    open();
    return chosen;
}

const ui::DraftParameter* parameterAt(const ui::StudyDraft& draft, const std::string& pointer)
{
    for (const auto& p : draft.parameters)
        if (p.pointer == pointer)
            return &p;
    return nullptr;
}

void setCell(QTableWidget* table, int row, int column, const QString& text)
{
    table->item(row, column)->setText(text);
}

} // namespace

class StudyBuilderTest : public QObject {
    Q_OBJECT
  private slots:
    void aFieldsValuesAreGuessedFromTheScenario()
    {
        const auto choice =
            ui::DraftParameter::forField("/coherence/decode", nlohmann::ordered_json("msi-directory"),
                                         {QStringLiteral("msi-directory"), QStringLiteral("mesi-directory")});
        QCOMPARE(choice.kind, ui::DraftParameter::Kind::Values);
        QCOMPARE(choice.values, QStringLiteral("msi-directory, mesi-directory"));
        const auto integer = ui::DraftParameter::forField("/serving/block_tokens", nlohmann::ordered_json(32), {});
        QCOMPARE(integer.kind, ui::DraftParameter::Kind::Integer);
        QCOMPARE(integer.min, 16.0);
        QCOMPARE(integer.max, 64.0);
        QCOMPARE(integer.step, std::int64_t{12});
        QCOMPARE(integer.gridSize(), std::uint64_t{5}); // 16 28 40 52 64
        const auto real = ui::DraftParameter::forField("/workload/time_scale", nlohmann::ordered_json(0.1), {});
        QCOMPARE(real.kind, ui::DraftParameter::Kind::LogReal);
        QCOMPARE(real.min, 0.05);
        QCOMPARE(real.max, 0.2);
        const auto text = ui::DraftParameter::forField("/coherence/lease/ttl", nlohmann::ordered_json("2 ms"), {});
        QCOMPARE(text.kind, ui::DraftParameter::Kind::Values);
        QCOMPARE(text.values, QStringLiteral("2 ms"));
    }

    void aDraftIsAStudyFileCoreAccepts()
    {
        ui::StudyDraft draft = ui::StudyDraft::withDefaults();
        draft.name = QStringLiteral("built");
        draft.vary(ui::DraftParameter::forField("/coherence/decode", std::nullopt,
                                                {QStringLiteral("msi-directory"), QStringLiteral("lazy-causal")}));
        draft.vary(ui::DraftParameter::forField("/serving/block_tokens", nlohmann::ordered_json(32), {}));
        // Varying a field again replaces its parameter.
        ui::DraftParameter blocks;
        blocks.pointer = "/serving/block_tokens";
        blocks.values = QStringLiteral("16, 32");
        QCOMPARE(draft.vary(blocks), std::size_t{1});
        draft.strategy = QStringLiteral("grid");
        QCOMPARE(draft.gridSize(), std::uint64_t{4});
        const auto json = draft.toJson(kMinimal.toStdString());
        QVERIFY(json["parameters"][1]["values"] == nlohmann::ordered_json::array({16, 32}));
        const core::StudySpec study = core::parseStudy(nlohmann::json::parse(json.dump()), "/tmp/built.json");
        QCOMPARE(study.parameters.size(), std::size_t{2});
        QCOMPARE(study.objectives.size(), std::size_t{2});
        QCOMPARE(study.objectives[0].metric, std::string("tpot_p99_ms"));
        QCOMPARE(study.constraints.size(), std::size_t{1});
        QCOMPARE(*study.constraints[0].max, 0.0);
        QCOMPARE(study.strategy.kind, core::StrategyKind::Grid);
    }

    void rightClickingAFieldVariesItInTheTuner()
    {
        QTemporaryDir dir;
        ui::MainWindow window(dir.filePath(QStringLiteral("runs.db")));
        QVERIFY(window.openScenario(kMinimal));
        window.show();
        auto* tuner = window.tunerPanel();
        auto* tabs = window.findChild<QTabWidget*>();
        QVERIFY(tabs->currentWidget() != tuner);

        // A choice: every protocol it offers becomes a value to try.
        auto* decode = window.findChild<QComboBox*>(QStringLiteral("/coherence/decode"));
        QVERIFY(decode);
        QVERIFY(chooseVary([decode] { emit decode->customContextMenuRequested(QPoint(4, 4)); }));
        const ui::DraftParameter* p = parameterAt(tuner->draft(), "/coherence/decode");
        QVERIFY(p);
        QVERIFY(p->values.contains(QStringLiteral("msi-directory")));
        QVERIFY(p->values.contains(QStringLiteral("lazy-causal")));
        QCOMPARE(tabs->currentWidget(), tuner);
        QVERIFY(tuner->builder() && tuner->builder()->isVisible());
        QCOMPARE(tuner->builder()->parameterTable()->rowCount(), 1);

        // A number: a range around its value, added as a second row.
        auto* control = window.findChild<ui::FieldEdit*>(QStringLiteral("/coherence/control_bytes"));
        QVERIFY(control);
        window.document()->setValue("/coherence/control_bytes", 64, QStringLiteral("Edit control bytes"));
        QVERIFY(chooseVary([control] {
            QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(4, 4), control->mapToGlobal(QPoint(4, 4)));
            QApplication::sendEvent(control, &event);
        }));
        p = parameterAt(tuner->draft(), "/coherence/control_bytes");
        QVERIFY(p);
        QCOMPARE(p->kind, ui::DraftParameter::Kind::Integer);
        QCOMPARE(p->min, 32.0);
        QCOMPARE(p->max, 128.0);
        QCOMPARE(tuner->builder()->parameterTable()->rowCount(), 2);
    }

    void aBuiltStudyRunsAndItsProblemsShowInTheDialog()
    {
        QTemporaryDir dir;
        ui::MainWindow window(dir.filePath(QStringLiteral("runs.db")));
        QVERIFY(window.openScenario(kMinimal));
        auto* document = window.document();
        auto* tuner = window.tunerPanel();
        document->requestVary("/serving/block_tokens", {});
        auto* builder = tuner->builder();
        QVERIFY(builder);
        auto* table = builder->parameterTable();
        QCOMPARE(table->rowCount(), 1);
        // A value the scenario cannot take: core names the study's field, nothing runs, the dialog stays.
        qobject_cast<QComboBox*>(table->cellWidget(0, 1))->setCurrentIndex(0); // values
        setCell(table, 0, 2, QStringLiteral("16, many"));
        builder->strategyChoice()->setCurrentIndex(builder->strategyChoice()->findData(QStringLiteral("grid")));
        builder->runButton()->click();
        QVERIFY(!tuner->isRunning());
        QVERIFY(builder->isVisible());
        QVERIFY(builder->problemsLabel()->isVisible());
        QVERIFY2(builder->problemsLabel()->text().contains(QStringLiteral("/parameters/0/values/1")),
                 qPrintable(builder->problemsLabel()->text()));

        // Fixed, with a second field varied: a 2 x 2 grid runs, as an opened study would.
        setCell(table, 0, 2, QStringLiteral("16, 32"));
        document->requestVary("/coherence/decode", {QStringLiteral("msi-directory"), QStringLiteral("lazy-causal")});
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("16, 32")); // an edit survives another field arriving
        QSignalSpy finished(tuner, &ui::TunerPanel::finished);
        builder->runButton()->click();
        QVERIFY(!builder->isVisible());
        QVERIFY(tuner->isRunning());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.front().front().toBool(), true);
        QCOMPARE(tuner->result()->points.size(), std::size_t{4});
        QCOMPARE(tuner->table()->rowCount(), 4);
        // The study is a file: `cohsim tune` runs the same one.
        const core::StudySpec saved =
            core::loadStudyFile(dir.filePath(QStringLiteral("studies/my-study.json")).toStdString());
        QCOMPARE(saved.parameters.size(), std::size_t{2});
        QCOMPARE(saved.scenarioPath, QFileInfo(kMinimal).canonicalFilePath().toStdString());
    }

    void theScatterShadesWhereTheShownMetricsMeetTheirSlos()
    {
        QTemporaryDir dir;
        ui::MainWindow window(dir.filePath(QStringLiteral("runs.db")));
        QVERIFY(window.openScenario(kMinimal));
        auto* tuner = window.tunerPanel();
        // An edit not saved: the study runs over a copy of what the editor shows, written beside it.
        window.document()->setValue("/coherence/control_bytes", 96, QStringLiteral("Edit control bytes"));
        window.document()->requestVary("/coherence/decode",
                                       {QStringLiteral("msi-directory"), QStringLiteral("sealed-lease")});
        auto* builder = tuner->builder();
        builder->strategyChoice()->setCurrentIndex(builder->strategyChoice()->findData(QStringLiteral("grid")));
        QSignalSpy finished(tuner, &ui::TunerPanel::finished);
        builder->runButton()->click();
        QVERIFY(finished.wait(60000));
        const core::StudySpec study =
            core::loadStudyFile(dir.filePath(QStringLiteral("studies/my-study.json")).toStdString());
        QCOMPARE(QString::fromStdString(study.scenarioPath),
                 QFileInfo(dir.filePath(QStringLiteral("studies/my-study.scenario.json"))).canonicalFilePath());
        QVERIFY(study.baseScenario["coherence"]["control_bytes"] == 96);
        tuner->xAxisChoice()->setCurrentIndex(tuner->xAxisChoice()->findData(QStringLiteral("ttft_p90_ms")));
        tuner->yAxisChoice()->setCurrentIndex(tuner->yAxisChoice()->findData(QStringLiteral("tpot_p99_ms")));
        // minimal.json's SLOs: TTFT 1.5 s, TPOT the default 100 ms. The region ends at both.
        const QAreaSeries* region = tuner->compliantRegion();
        QVERIFY(region->isVisible());
        QCOMPARE(region->upperSeries()->count(), 2);
        QCOMPARE(region->upperSeries()->at(1).x(), 1500.0);
        QCOMPARE(region->upperSeries()->at(0).y(), 100.0);
        // A metric with no SLO and no constraint on either axis: nothing to shade.
        tuner->xAxisChoice()->setCurrentIndex(tuner->xAxisChoice()->findData(QStringLiteral("throughput_tok_s")));
        tuner->yAxisChoice()->setCurrentIndex(
            tuner->yAxisChoice()->findData(QStringLiteral("coherence_bytes_per_token")));
        QVERIFY(!region->isVisible());
        // A constraint on a shown metric bounds it too: the draft's slo_attainment >= 0.9 shades from 0.9 up.
        builder->setDraft([] {
            auto d = ui::StudyDraft::withDefaults();
            d.constraints = {{"slo_attainment", 0.9, std::nullopt}};
            d.vary(ui::DraftParameter::forField("/coherence/decode", std::nullopt, {QStringLiteral("msi-directory")}));
            d.strategy = QStringLiteral("grid");
            return d;
        }());
        builder->runButton()->click();
        QVERIFY(finished.wait(60000));
        tuner->yAxisChoice()->setCurrentIndex(tuner->yAxisChoice()->findData(QStringLiteral("slo_attainment")));
        QVERIFY(region->isVisible());
        QCOMPARE(region->lowerSeries()->at(0).y(), 0.9);
    }
};

QTEST_MAIN(StudyBuilderTest)
#include "tst_study_builder.moc"
