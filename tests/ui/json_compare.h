#pragma once
// QCOMPARE cannot print JSON: compare two JSON values and show both on failure.

#include <nlohmann/json.hpp>

#include <QString>
#include <QTest>

#define COMPARE_JSON(actual, expected)                                                                                 \
    QVERIFY2(nlohmann::ordered_json(actual) == nlohmann::ordered_json(expected),                                       \
             qPrintable(QStringLiteral("%1 != %2")                                                                     \
                            .arg(QString::fromStdString(nlohmann::ordered_json(actual).dump()),                        \
                                 QString::fromStdString(nlohmann::ordered_json(expected).dump()))))
