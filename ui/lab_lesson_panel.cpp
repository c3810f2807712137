#include "ui/lab_lesson_panel.h"

#include "ui/lab_model.h"
#include "ui/theme.h"

#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QSplitter>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

#include <algorithm>

namespace coh::ui {

LabLessonPanel::LabLessonPanel(LabModel* lab, QWidget* parent)
    : QWidget(parent)
    , m_lab(lab)
    , m_list(new QListWidget(this))
    , m_scroll(new QScrollArea(this))
    , m_text(new QLabel)
    , m_error(new QLabel(this))
{
    m_list->setObjectName(QStringLiteral("lessonList"));
    m_text->setObjectName(QStringLiteral("lessonText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setObjectName(QStringLiteral("lessonError"));
    m_error->setWordWrap(true);
    setTone(m_error, Tone::Error);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_list->setFocusPolicy(Qt::NoFocus);
    // A title wraps inside the list's width instead of being cut or scrolled sideways: each row as tall as its
    // title needs (uniform sizes off), laid out again when the list's width changes.
    m_list->setWordWrap(true);
    m_list->setUniformItemSizes(false);
    m_list->setResizeMode(QListView::Adjust);
    m_list->setTextElideMode(Qt::ElideNone);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setAlternatingRowColors(true); // where a wrapped title ends and the next begins

    m_lessons = loadLessons(m_errors);
    for (const Lesson& l : m_lessons) {
        auto* item = new QListWidgetItem(lessonListTitle(l), m_list);
        item->setData(Qt::UserRole, l.id);
        item->setToolTip(lessonListToolTip(l));
    }
    m_error->setText(m_errors.join(QLatin1Char('\n')));
    m_error->setVisible(!m_errors.isEmpty());

    // The text and whatever sits under it (the bug-hunt panel) scroll together, below a list of fixed share.
    auto* textBox = new QWidget;
    m_textLayout = new QVBoxLayout(textBox);
    m_textLayout->addWidget(m_text);
    m_textLayout->addStretch(1);
    m_scroll->setWidget(textBox);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setFocusPolicy(Qt::NoFocus);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("lessonSplit"));
    split->setChildrenCollapsible(false);
    split->addWidget(m_list);
    split->addWidget(m_scroll);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    split->setSizes({25, 75});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split, 1);
    layout->addWidget(m_error);

    connect(m_list, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { openLesson(item->data(Qt::UserRole).toString()); });
    connect(m_list, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { openLesson(item->data(Qt::UserRole).toString()); });
    connect(m_lab, &LabModel::changed, this, &LabLessonPanel::refreshText);
}

QString LabLessonPanel::text() const
{
    return QTextDocumentFragment::fromHtml(m_text->text()).toPlainText();
}

void LabLessonPanel::addBelowText(QWidget* widget)
{
    m_textLayout->insertWidget(1, widget);
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
    m_conclusionHidden = it->bugHunt; // until the hunt is answered
    // Selecting scrolls only if the row is out of view (opened from the Start page): a clicked row stays put.
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->data(Qt::UserRole).toString() == id)
            m_list->setCurrentRow(i, QItemSelectionModel::ClearAndSelect);
    refreshText();
    emit lessonOpened(*m_current);
    return true;
}

void LabLessonPanel::closeLesson()
{
    if (!m_current)
        return;
    m_current.reset();
    m_list->clearSelection();
    refreshText();
    emit lessonClosed();
}

void LabLessonPanel::setIntroduction(const QString& html)
{
    m_introduction = html;
    refreshText();
}

void LabLessonPanel::setConclusionHidden(bool hidden)
{
    m_conclusionHidden = hidden;
    refreshText();
}

void LabLessonPanel::refreshText()
{
    if (!m_current) {
        m_text->setText(m_introduction.isEmpty()
                            ? tr("<p>Pick a lesson above, or play freely: issue ops on the <b>Play</b> tab.</p>")
                            : m_introduction);
        return;
    }
    const int step = m_lab->currentStep();
    if (!m_lab->isTrace() && (m_lab->opsText() != m_lessonOps || m_lab->protocolName() != m_current->protocol ||
                              m_lab->caches() != m_current->caches)) {
        m_text->setText(QStringLiteral("<h3>%1</h3><p>%2</p>")
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
    // A lesson concludes at its last step; a bug hunt's conclusion explains the bug, so it waits for the answer.
    const bool atEnd = !m_lab->isTrace() && step == m_lab->stepCount() && step > 0;
    if ((atEnd && !m_current->bugHunt) || (m_current->bugHunt && !m_conclusionHidden))
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Conclusion:"), m_run.conclusion.toHtmlEscaped());
    m_text->setText(html);
}

} // namespace coh::ui
