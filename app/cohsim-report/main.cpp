// cohsim-report --db FILE --run ID --format html|md|pdf -o FILE: one run's report (docs/reports.md). `cohsim report`
// runs it; it draws on Qt's offscreen platform, so no display is needed. Exit 2 with the file, the field and the fix
// on bad input, as cohsim.
#include "core/base/input_error.h"
#include "core/store/run_store.h"
#include "ui/report_content.h"
#include "ui/report_study.h"
#include "ui/report_writers.h"

#include <CLI/CLI.hpp>

#include <QApplication>

#include <iostream>
#include <memory>
#include <optional>
#include <vector>

int main(int argc, char** argv)
{
    // Before QApplication: a report never needs a screen.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // Nothing a report's reader can act on: the offscreen platform says, for every chart laid out, that it cannot pass
    // size hints to a window manager it does not have; and a session without XDG_RUNTIME_DIR (a container, cron, a
    // CI job) gets a line about the runtime folder a report never uses.
    static const QtMessageHandler previous = qInstallMessageHandler(nullptr);
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext& context, const QString& message) {
        if (!message.contains(QLatin1String("propagateSizeHints")) &&
            !message.contains(QLatin1String("XDG_RUNTIME_DIR")) && previous)
            previous(type, context, message);
    });
    CLI::App cli{"Render a stored run's report (docs/reports.md); `cohsim report` runs this"};
    std::string db, output, format = "html";
    std::int64_t id = 0;
    std::vector<std::int64_t> compare;
    std::int64_t studyId = 0;
    cli.add_option("--db", db, "Run database")->required();
    cli.add_option("--run", id, "Run id")->required();
    cli.add_option("--compare", compare, "Runs to compare the run with");
    cli.add_option("--study", studyId, "A study whose Pareto front the report shows");
    cli.add_option("--format", format, "html, md or pdf")->check(CLI::IsMember({"html", "md", "pdf"}));
    cli.add_option("-o,--output", output, "Report file")->required();
    CLI11_PARSE(cli, argc, argv);

    QApplication app(argc, argv);
    try {
        coh::core::RunStore store(db);
        std::vector<coh::ui::RunReportInput> others;
        for (const std::int64_t other : compare)
            others.push_back(coh::ui::loadRunForReport(store, other, "--compare"));
        std::optional<coh::ui::StudyReportInput> study;
        if (studyId != 0) {
            study = coh::ui::loadStudyForReport(store, studyId);
            if (!study)
                throw coh::core::InputError(db, "--study", "there is no study " + std::to_string(studyId),
                                            "give a study id of this database (`cohsim tune` prints it)");
        }
        const coh::ui::ReportContent report =
            coh::ui::buildRunReport(coh::ui::loadRunForReport(store, id), others, study ? &*study : nullptr);
        QString error;
        if (!coh::ui::writeReport(report, QString::fromStdString(format), QString::fromStdString(output), &error))
            throw coh::core::InputError(output, "-o", "cannot write the report (" + error.toStdString() + ")",
                                        "check that its folder exists, is writable and has room for it");
        return 0;
    } catch (const coh::core::InputError& e) {
        std::cerr << "error: " << e.what() << '\n';
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << '\n';
        return 1;
    }
}
