#include "ui/lab_lesson_panel.h"

#include "ui/lab_model.h"

#include <QLabel>
#include <QListWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace coh::ui {

LabLessonPanel::LabLessonPanel(LabModel* lab, QWidget* parent)
    : QWidget(parent)
    , m_lab(lab)
    , m_list(new QListWidget(this))
    , m_text(new QTextBrowser(this))
    , m_error(new QLabel(this))
{
    m_list->setObjectName(QStringLiteral("lessonList"));
    m_text->setObjectName(QStringLiteral("lessonText"));
    m_error->setObjectName(QStringLiteral("lessonError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b00020"));
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setFocusPolicy(Qt::NoFocus);
    m_list->setFocusPolicy(Qt::NoFocus);

    m_lessons = loadLessons(m_errors);
    for (const Lesson& l : m_lessons) {
        auto* item = new QListWidgetItem(l.bugHunt ? tr("Bug hunt: %1").arg(l.title) : l.title, m_list);
        item->setData(Qt::UserRole, l.id);
        item->setToolTip(tr("%1, %2 caches, ops %3").arg(l.protocol).arg(l.caches).arg(l.ops));
    }
    m_error->setText(m_errors.join(QLatin1Char('\n')));
    m_error->setVisible(!m_errors.isEmpty());
    m_text->setVisible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("<b>Lessons</b>"), this));
    layout->addWidget(m_list, 1);
    layout->addWidget(m_error);
    layout->addWidget(m_text, 2);

    connect(m_list, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { openLesson(item->data(Qt::UserRole).toString()); });
    connect(m_list, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { openLesson(item->data(Qt::UserRole).toString()); });
    connect(m_lab, &LabModel::changed, this, &LabLessonPanel::refreshText);
}

QString LabLessonPanel::text() const
{
    return m_text->toPlainText();
}

bool LabLessonPanel::openLesson(const QString& id)
{
    const auto it = std::find_if(m_lessons.begin(), m_lessons.end(), [&id](const Lesson& l) { return l.id == id; });
    QString error;
    LessonRun run;
    if (it == m_lessons.end())
        error = tr("No lesson \"%1\"; the lesson list shows the ones available.").arg(id);
    else if (!runLesson(*it, run, error) || !m_lab->load(it->protocol, it->caches, it->ops))
        error = error.isEmpty() ? m_lab->errorText() : error;
    if (!error.isEmpty()) {
        m_error->setText(error);
        m_error->setVisible(true);
        return false;
    }
    m_error->setText(m_errors.join(QLatin1Char('\n')));
    m_error->setVisible(!m_errors.isEmpty());
    m_current = *it;
    m_run = run;
    m_lessonOps = m_lab->opsText();
    m_text->setVisible(true);
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->data(Qt::UserRole).toString() == id)
            m_list->setCurrentRow(i);
    refreshText();
    emit lessonOpened(*m_current);
    return true;
}

void LabLessonPanel::closeLesson()
{
    if (!m_current)
        return;
    m_current.reset();
    m_text->setVisible(false);
    m_list->clearSelection();
    emit lessonClosed();
}

void LabLessonPanel::refreshText()
{
    if (!m_current)
        return;
    const int step = m_lab->currentStep();
    if (!m_lab->isTrace() && (m_lab->opsText() != m_lessonOps || m_lab->protocolName() != m_current->protocol ||
                              m_lab->caches() != m_current->caches)) {
        m_text->setHtml(QStringLiteral("<h3>%1</h3><p>%2</p>")
                            .arg(m_current->title.toHtmlEscaped(),
                                 tr("You have changed the run, so the lesson's notes no longer match it. "
                                    "Pick the lesson again to start over.")));
        return;
    }
    QString html =
        QStringLiteral("<h3>%1</h3><p>%2</p>").arg(m_current->title.toHtmlEscaped(), m_run.intro.toHtmlEscaped());
    if (m_run.stepNotes.contains(step))
        html += QStringLiteral("<p><b>%1</b> %2</p>")
                    .arg(tr("Step %1:").arg(step), m_run.stepNotes.value(step).toHtmlEscaped());
    if (!m_lab->isTrace() && step == m_lab->stepCount() && step > 0)
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Conclusion:"), m_run.conclusion.toHtmlEscaped());
    m_text->setHtml(html);
}

} // namespace coh::ui
