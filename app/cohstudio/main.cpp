// cohstudio: Coherence Studio's desktop app. Everything lives in coh_ui; this only parses the command line.
#include "ui/document_files.h"
#include "ui/main_window.h"
#include "ui/screenshot_tour.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QStyleFactory>

#include <cstdio>

int main(int argc, char** argv)
{
    // Qt 6 scales for high DPI by default; pass fractional factors through so 150% screens are not rounded.
    QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Coherence Studio"));
    QApplication::setOrganizationDomain(QStringLiteral("coherence-studio.org"));
    QApplication::setApplicationName(QStringLiteral("cohstudio"));
    QApplication::setApplicationDisplayName(QStringLiteral("Coherence Studio"));
    QApplication::setApplicationVersion(QStringLiteral(COH_VERSION));
    // Fusion looks the same everywhere and honours the View > Dark Palette toggle.
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/app.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate(
        "main", "Coherence Studio: simulate KV-cache coherence for disaggregated LLM serving."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption openOption(QStringLiteral("open"), QApplication::translate("main", "Scenario to open."),
                                        QApplication::translate("main", "FILE"));
    const QCommandLineOption dbOption(QStringLiteral("db"),
                                      QApplication::translate("main", "Run database (default: shared with cohsim)."),
                                      QApplication::translate("main", "FILE"));
    const QCommandLineOption screenshotsOption(
        QStringLiteral("screenshots"),
        QApplication::translate("main", "Run the scenario (and again under another decode protocol, for Compare), "
                                        "save PNGs of every tab, Compare, the help window and the Lab's bug hunt and "
                                        "delivery in both palettes at 1024x700 and 1600x1000 into DIR, and quit."),
        QApplication::translate("main", "DIR"));
    parser.addOption(openOption);
    parser.addOption(dbOption);
    parser.addOption(screenshotsOption);
    parser.addPositionalArgument(QStringLiteral("scenario"),
                                 QApplication::translate("main", "Scenario to open (default: the shipped default)."),
                                 QStringLiteral("[scenario]"));
    parser.process(app);

    QString scenario = parser.value(openOption);
    if (scenario.isEmpty() && !parser.positionalArguments().isEmpty())
        scenario = parser.positionalArguments().constFirst();
    if (scenario.isEmpty())
        scenario = coh::ui::DocumentFiles::defaultScenarioPath();

    coh::ui::MainWindow window(parser.value(dbOption));
    window.openScenario(scenario); // a failure shows its error in Problems; the window still opens
    window.show();
    if (parser.isSet(screenshotsOption)) {
        auto* tour = new coh::ui::ScreenshotTour(&window, parser.value(screenshotsOption), &window);
        QObject::connect(tour, &coh::ui::ScreenshotTour::finished, &app, [tour](bool ok, const QString& error) {
            for (const auto& path : tour->saved())
                std::fprintf(stdout, "saved %s\n", qPrintable(path));
            if (!ok)
                std::fprintf(stderr, "cohstudio --screenshots: %s\n", qPrintable(error));
            QApplication::exit(ok ? 0 : 1);
        });
        QMetaObject::invokeMethod(tour, &coh::ui::ScreenshotTour::start, Qt::QueuedConnection);
    }
    return QApplication::exec();
}
