#pragma once
// Where an export dialog starts: the folder of the last export, else the user's Documents (or home), never
// the process's working directory (which, started from a checkout, is the source tree).

#include <QString>

namespace coh::ui {

QString exportFolder();
// Remembers the folder of `filePath`, just written, for the next export.
void rememberExportFolder(const QString& filePath);
// `fileName` in exportFolder(): what a save dialog suggests.
QString suggestedExportPath(const QString& fileName);

} // namespace coh::ui
