#pragma once
// Answers the app's modal dialogs from a test: the next one to open, once the event loop runs it.
#include <QApplication>
#include <QDialog>
#include <QFileDialog>
#include <QMetaObject>
#include <QTimer>

namespace coh::ui::test {

// Answers the next save dialog with `path` (Qt's own dialog: call
// QApplication::setAttribute(Qt::AA_DontUseNativeDialogs) first). Any other dialog is closed instead, so the test fails
// rather than waiting on it.
inline void answerNextSaveDialog(const QString& path)
{
    QTimer::singleShot(0, [path] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog) {
            if (auto* other = qobject_cast<QDialog*>(QApplication::activeModalWidget()))
                other->reject();
            return;
        }
        dialog->selectFile(path);
        QMetaObject::invokeMethod(dialog, "accept"); // a slot, protected in QFileDialog
    });
}

} // namespace coh::ui::test
