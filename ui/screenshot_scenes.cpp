#include "ui/screenshot_scenes.h"

#include "ui/message_roles.h"
#include "ui/replay_message_details.h"
#include "ui/replay_model.h"

#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QWidget>

#include <algorithm>
#include <utility>
#include <vector>

namespace coh::ui {

qint64 busiestInstant(const core::RunResult& run)
{
    std::vector<std::pair<core::SimTime, int>> edges;
    edges.reserve(run.messages.size() * 2);
    for (const auto& m : run.messages) {
        edges.emplace_back(m.start, +1);
        edges.emplace_back(m.end, -1);
    }
    // Ends before starts at the same instant: a message is in flight over [start, end).
    std::sort(edges.begin(), edges.end());
    int inFlight = 0, best = -1;
    qint64 at = 0;
    for (const auto& [time, delta] : edges) {
        inFlight += delta;
        if (inFlight > best) {
            best = inFlight;
            at = time;
        }
    }
    return at;
}

int dataMessageWithStep(const ReplayModel& model, qint64 at)
{
    if (model.isEmpty())
        return -1;
    const auto fits = [&model](std::uint32_t m) {
        return model.role(m) == MessageRole::Data && messageTransition(model, m).known;
    };
    std::vector<std::uint32_t> flying;
    model.inFlight(at, flying);
    std::sort(flying.begin(), flying.end()); // the earliest sent first: a stable pick for a given run
    for (std::uint32_t m : flying)
        if (fits(m))
            return static_cast<int>(m);
    const auto count = static_cast<std::uint32_t>(model.run()->messages.size());
    for (std::uint32_t m = 0; m < count; ++m)
        if (fits(m))
            return static_cast<int>(m);
    return -1;
}

QString comparedDecodeProtocol(const nlohmann::ordered_json& scenario)
{
    const auto decode = scenario.value("/coherence/decode"_json_pointer, std::string());
    return decode == "lazy-causal" ? QStringLiteral("msi-directory") : QStringLiteral("lazy-causal");
}

QPixmap grabOver(QWidget* main, QWidget* window)
{
    QPixmap picture = main->grab();
    const QPixmap over = window->grab();
    const QSize room = main->size();
    const QPoint at(std::max(0, (room.width() - window->width()) / 2),
                    std::max(0, (room.height() - window->height()) / 2));
    QPainter painter(&picture);
    painter.drawPixmap(at, over);
    // A frame, as a window manager would draw one, so the two windows' edges do not merge.
    painter.setPen(main->palette().color(QPalette::Shadow));
    painter.drawRect(QRect(at - QPoint(1, 1), window->size() + QSize(1, 1)));
    return picture;
}

QPixmap grabMenuOpen(QMainWindow* main, QMenu* menu, QMenu* submenu)
{
    QPixmap picture = main->grab();
    QMenuBar* bar = main->menuBar();
    menu->ensurePolished();
    submenu->ensurePolished();
    menu->adjustSize();
    submenu->adjustSize();
    menu->setActiveAction(submenu->menuAction()); // highlighted, as the pointer on it leaves it
    const QPoint menuAt = bar->mapTo(main, bar->actionGeometry(menu->menuAction()).bottomLeft());
    const QPoint submenuAt = menuAt + QPoint(menu->width(), menu->actionGeometry(submenu->menuAction()).top());
    QPainter painter(&picture);
    painter.setPen(main->palette().color(QPalette::Shadow));
    for (const auto& [at, widget] : {std::pair<QPoint, QMenu*>{menuAt, menu}, {submenuAt, submenu}}) {
        painter.drawPixmap(at, widget->grab());
        painter.drawRect(QRect(at - QPoint(1, 1), widget->size() + QSize(1, 1)));
    }
    menu->setActiveAction(nullptr); // the live menu as it was
    return picture;
}

} // namespace coh::ui
