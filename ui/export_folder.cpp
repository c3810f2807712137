#include "ui/export_folder.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace coh::ui {

namespace {
const QString kKey = QStringLiteral("export/lastFolder");
}

QString exportFolder()
{
    const QString last = QSettings().value(kKey).toString();
    if (!last.isEmpty() && QFileInfo(last).isDir())
        return last;
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (!documents.isEmpty() && QFileInfo(documents).isDir())
        return documents;
    return QDir::homePath();
}

void rememberExportFolder(const QString& filePath)
{
    QSettings().setValue(kKey, QFileInfo(filePath).absolutePath());
}

QString suggestedExportPath(const QString& fileName)
{
    return QDir(exportFolder()).filePath(fileName);
}

} // namespace coh::ui
