#pragma once
// A layout that places its items left to right and wraps to a new row when the width runs out, so a row of
// legend entries stays whole in a narrow window (Qt has no such layout; this is the classic height-for-width one).
// An item that is itself a flow (a group kept together) goes where its whole row fits, else it starts a row of its
// own and wraps inside it.
#include <QLayout>
#include <QList>

namespace coh::ui {

class FlowLayout : public QLayout {
  public:
    explicit FlowLayout(QWidget* parent = nullptr, int hSpacing = 8, int vSpacing = 2);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int count() const override { return static_cast<int>(m_items.size()); }
    QLayoutItem* itemAt(int index) const override { return m_items.value(index); }
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
    // Every item in one row; at least minimumSize().
    QSize sizeHint() const override;
    QSize minimumSize() const override;
    void setGeometry(const QRect& rect) override;

  private:
    // Lays the items out in `rect` (or only measures); returns the height used.
    int arrange(const QRect& rect, bool apply) const;

    QList<QLayoutItem*> m_items;
    int m_hSpacing;
    int m_vSpacing;
};

} // namespace coh::ui
