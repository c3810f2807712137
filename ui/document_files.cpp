#include "ui/document_files.h"

#include "core/scenario/datasets_dir.h"
#include "ui/main_actions.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

namespace coh::ui {

DocumentFiles::DocumentFiles(ScenarioDocument* document, QWidget* dialogParent)
    : QObject(dialogParent)
    , m_document(document)
    , m_parent(dialogParent)
{
}

QString DocumentFiles::defaultScenarioPath()
{
    return toQString(core::datasetsDir()) + QStringLiteral("/scenarios/default.json");
}

bool DocumentFiles::maybeSave()
{
    if (!m_document->isModified())
        return true;
    const auto answer = QMessageBox::warning(
        m_parent, tr("Unsaved changes"), tr("%1 has unsaved changes. Save them?").arg(m_document->displayName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

bool DocumentFiles::save()
{
    if (m_document->filePath().isEmpty())
        return saveAs();
    QString error;
    if (!m_document->saveAs(m_document->filePath(), &error)) {
        QMessageBox::warning(m_parent, tr("Save failed"), error);
        return false;
    }
    emit status(tr("Saved %1").arg(m_document->filePath()));
    return true;
}

bool DocumentFiles::saveAs()
{
    const QString suggested = m_document->filePath().isEmpty()
                                  ? QDir::home().filePath(m_document->displayName() + QStringLiteral(".json"))
                                  : m_document->filePath();
    const QString path =
        QFileDialog::getSaveFileName(m_parent, tr("Save scenario"), suggested, tr("Scenarios (*.json)"));
    if (path.isEmpty())
        return false;
    QString error;
    if (!m_document->saveAs(path, &error)) {
        QMessageBox::warning(m_parent, tr("Save failed"), error);
        return false;
    }
    MainActions::addRecent(path);
    emit status(tr("Saved %1").arg(path));
    return true;
}

bool DocumentFiles::newScenario()
{
    if (!maybeSave())
        return false;
    // A new scenario starts from the shipped default, untitled, so it runs before the user changes anything.
    ScenarioDocument source;
    QString error;
    if (!source.open(defaultScenarioPath(), &error)) {
        QMessageBox::warning(m_parent, tr("New scenario"), error);
        return false;
    }
    nlohmann::ordered_json json = source.json();
    json["name"] = "untitled";
    m_document->reset(std::move(json));
    emit status(tr("New scenario"));
    return true;
}

bool DocumentFiles::open(const QString& path, QString* error)
{
    if (!m_document->open(path, error))
        return false;
    // Presets are templates: open them untitled so Save does not overwrite the shipped file.
    const QString presets = QDir(toQString(core::datasetsDir()) + QStringLiteral("/presets")).absolutePath();
    if (QFileInfo(path).absolutePath() == QDir(presets).canonicalPath() || QFileInfo(path).absolutePath() == presets)
        m_document->reset(m_document->json());
    else
        MainActions::addRecent(path);
    emit status(tr("Opened %1").arg(path));
    return true;
}

} // namespace coh::ui
