#pragma once
// The guides (docs/*.md, compiled into the binary as ":/docs/...") rendered inside the app: F1 and the Help
// menu open them here, so help works without a Markdown viewer. Links between guides (and to a heading) are
// followed in place with Back/Forward; web links open in the browser.

#include <QList>
#include <QString>
#include <QTextBrowser>
#include <QWidget>

#include <utility>

class QLabel;

namespace coh::ui {

// A QTextBrowser for the guides: headings get GitHub's anchors (so "engine.md#prefix-pool" lands on the
// heading), wide pictures are scaled to the page, and a link to a file that is not compiled in says so
// instead of emptying the page.
class HelpBrowser : public QTextBrowser {
    Q_OBJECT
  public:
    explicit HelpBrowser(QWidget* parent = nullptr);

    // GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
    static QString anchorFor(const QString& heading);

  signals:
    void message(const QString& text);

  protected:
    void doSetSource(const QUrl& name, QTextDocument::ResourceType type) override;

  private:
    void addHeadingAnchors();
    void fitImages();
};

class HelpWindow : public QWidget {
    Q_OBJECT
  public:
    explicit HelpWindow(QWidget* parent = nullptr);

    // Every compiled-in guide as (file name, title from its first heading): the desktop app's guide first,
    // then its pages (gui-*.md), then the others by title.
    static QList<std::pair<QString, QString>> guides();
    static QString resourcePath(const QString& file); // ":/docs/<file>"

    // Shows `file` (e.g. "scenario-format.md", optionally with "#anchor"), raises the window.
    void showGuide(const QString& file);
    HelpBrowser* browser() const { return m_browser; }

  private:
    HelpBrowser* m_browser;
    QLabel* m_status;
};

} // namespace coh::ui
