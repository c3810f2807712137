#include "ui/vary_action.h"

#include "ui/scenario_document.h"

#include <QComboBox>
#include <QMenu>

namespace coh::ui {

void addVaryAction(QMenu* menu, ScenarioDocument* document, const std::string& pointer, const QStringList& choices)
{
    if (!menu->actions().isEmpty())
        menu->addSeparator();
    QAction* vary = menu->addAction(QObject::tr("Vary in a Study…"));
    vary->setObjectName(QStringLiteral("varyInStudy"));
    vary->setToolTip(QObject::tr("Add %1 to the Tuner's study").arg(QString::fromStdString(pointer)));
    QObject::connect(vary, &QAction::triggered, document,
                     [document, pointer, choices] { document->requestVary(pointer, choices); });
}

QStringList choicesOf(const QComboBox* combo)
{
    QStringList out;
    for (int i = 0; i < combo->count(); ++i)
        if (const QString v = combo->itemData(i).toString(); !v.isEmpty() && !out.contains(v))
            out << v;
    return out;
}

void offerVary(QComboBox* combo, ScenarioDocument* document, const std::string& pointer)
{
    combo->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(combo, &QComboBox::customContextMenuRequested, combo, [combo, document, pointer](QPoint at) {
        QMenu menu(combo);
        addVaryAction(&menu, document, pointer, choicesOf(combo));
        menu.exec(combo->mapToGlobal(at));
    });
}

} // namespace coh::ui
