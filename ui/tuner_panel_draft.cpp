// The Tuner's study being built: "Vary in a Study…" from the scenario's fields, the New Study dialog, and the study
// file a built study is written to and run from (docs/tuning.md#building-a-study-in-the-app).
#include "core/base/input_error.h"
#include "core/tune/study_parser.h"
#include "ui/scenario_document.h"
#include "ui/study_builder_dialog.h"
#include "ui/tuner_panel.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QRegularExpression>
#include <QStandardPaths>

#include <filesystem>
#include <fstream>

namespace coh::ui {

void TunerPanel::setDocument(ScenarioDocument* document)
{
    m_document = document;
    connect(document, &ScenarioDocument::varyRequested, this, &TunerPanel::varyField);
}

void TunerPanel::varyField(const std::string& pointer, const QStringList& choices)
{
    if (m_builder)
        m_draft = m_builder->draft(); // keep what the user typed
    std::optional<nlohmann::ordered_json> current;
    if (m_document)
        current = m_document->value(pointer);
    m_draft.vary(DraftParameter::forField(pointer, current, choices));
    openBuilder();
    emit showRequested();
}

void TunerPanel::openBuilder()
{
    if (!m_builder) {
        m_builder = new StudyBuilderDialog(this);
        connect(m_builder, &StudyBuilderDialog::runRequested, this, &TunerPanel::runDraft);
        connect(m_builder, &StudyBuilderDialog::saveRequested, this, &TunerPanel::saveDraft);
        connect(m_builder, &QDialog::finished, this, [this] { m_draft = m_builder->draft(); });
    }
    m_builder->setDraft(m_draft);
    m_builder->showProblems({});
    m_builder->show();
    m_builder->raise();
}

QString TunerPanel::studiesFolder() const
{
    const QString base = !m_databasePath.isEmpty() ? QFileInfo(m_databasePath).absolutePath()
                                                   : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    return QDir(base).filePath(QStringLiteral("studies"));
}

bool TunerPanel::writeDraft(const StudyDraft& draft, const QString& path, QString* error) const
{
    if (!m_document) {
        *error = tr("No scenario is open to vary.");
        return false;
    }
    const QFileInfo target(path);
    if (!QDir().mkpath(target.absolutePath())) {
        *error = tr("Cannot create the folder %1.").arg(target.absolutePath());
        return false;
    }
    // The study names its base scenario by path: the scenario's own file when it is saved as shown, else a copy
    // of what the editor shows beside the study (a trace it names next to its own file keeps being found).
    QString scenario = m_document->filePath();
    if (scenario.isEmpty() || m_document->isModified()) {
        nlohmann::ordered_json copy = m_document->json();
        if (const auto trace = m_document->value("/workload/path"); trace && trace->is_string()) {
            const std::filesystem::path relative(trace->get<std::string>());
            if (relative.is_relative() && !m_document->filePath().isEmpty()) {
                const auto beside =
                    std::filesystem::path(QFileInfo(m_document->filePath()).absolutePath().toStdString()) / relative;
                std::error_code ec;
                if (std::filesystem::is_regular_file(beside, ec))
                    copy["workload"]["path"] = beside.string();
            }
        }
        scenario = target.absoluteDir().filePath(target.completeBaseName() + QStringLiteral(".scenario.json"));
        std::ofstream out(scenario.toStdString());
        out << copy.dump(2) << '\n';
        if (!out) {
            *error = tr("Cannot write %1.").arg(scenario);
            return false;
        }
    }
    std::ofstream out(path.toStdString());
    out << draft.toJson(QFileInfo(scenario).absoluteFilePath().toStdString()).dump(2) << '\n';
    if (!out) {
        *error = tr("Cannot write %1.").arg(path);
        return false;
    }
    return true;
}

void TunerPanel::runDraft()
{
    if (isRunning())
        return;
    m_draft = m_builder->draft();
    QString name = m_draft.name;
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
    if (name.isEmpty())
        name = QStringLiteral("study");
    const QString path = QDir(studiesFolder()).filePath(name + QStringLiteral(".json"));
    QString error;
    if (!writeDraft(m_draft, path, &error)) {
        m_builder->showProblems(error);
        return;
    }
    if (!openStudy(path)) {
        // Core's words, naming the study's fields (/parameters/0/values/1) and the fix.
        m_builder->showProblems(m_status->text());
        return;
    }
    m_builder->showProblems({});
    m_builder->hide();
    run();
}

void TunerPanel::saveDraft()
{
    const StudyDraft draft = m_builder->draft();
    const QString path = QFileDialog::getSaveFileName(
        m_builder, tr("Save Study"), QDir(studiesFolder()).filePath(draft.name + QStringLiteral(".json")),
        tr("Study files (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!writeDraft(draft, path, &error)) {
        m_builder->showProblems(error);
        return;
    }
    try {
        core::loadStudyFile(path.toStdString());
        m_builder->showProblems({});
    } catch (const core::InputError& e) {
        m_builder->showProblems(tr("Saved, but core refuses it:\n%1").arg(QString::fromStdString(e.what())));
    }
}

} // namespace coh::ui
