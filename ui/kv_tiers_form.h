#pragma once
// The Serving section's KV tier rows (serving.kv_tiers): the memory tiers below HBM that decode sequences spill to,
// as a checkable list of dram, cxl and storage, and the eviction and write policies as choices with core's default
// first. Checking a tier appends it to the spill order, unchecking removes it; the list shows the checked tiers
// first, numbered in that order. Below the list, one capacity field per tier (capacity.<tier>: the most KV bytes each
// decode instance keeps there), enabled while its tier is checked or the file gives one; unchecking a tier drops its
// capacity in the same step, and clearing the last one drops the capacity object. The policies mean nothing without
// tiers: unchecking the last tier removes the whole section, and the policies stay disabled until a tier is
// checked. Each change is one undo step.

#include "core/base/input_error.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <utility>
#include <vector>

class QComboBox;
class QFormLayout;
class QListWidget;
class QListWidgetItem;
class QWidget;

namespace coh::ui {

class FieldEdit;
class ScenarioDocument;
class ScenarioFields;

class KvTiersForm : public QObject {
    Q_OBJECT
  public:
    // Adds the rows to `form`; `fields` binds the capacities and marks them and the policies with validation's
    // problems.
    KvTiersForm(ScenarioDocument* document, ScenarioFields* fields, QFormLayout* form, QWidget* page);

    QListWidget* tierList() const { return m_tiers; }
    QComboBox* evictionCombo() const { return m_eviction; }
    QComboBox* writeCombo() const { return m_write; }
    // The capacity field of a tier below HBM ("dram"), nullptr for any other name.
    FieldEdit* capacityEdit(const QString& tier) const;

    // Reads the tiers and the policies back from the document (signals blocked) and enables the capacities that
    // may be edited.
    void refresh();
    // Marks the tier list with the problems of the section other than the policies' own.
    void showProblems(const std::vector<core::InputProblem>& problems);

  private:
    void setTiers(QListWidgetItem* changed);
    void setPolicy(QComboBox* combo, const char* key, const QString& what);

    ScenarioDocument* m_document;
    QListWidget* m_tiers;
    QComboBox* m_eviction;
    QComboBox* m_write;
    std::vector<std::pair<QString, FieldEdit*>> m_capacities; // tier, its capacity field
    bool m_inItemChange = false; // setTiers is storing: the list must not lose the item being changed
};

} // namespace coh::ui
