// Printing tables and writing them as CSV.
#include "cli/table.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <stdexcept>

#include "softfloat/escape.hpp"

namespace softfloat::cli {
namespace {

// Numbers ("-6.5", "1.5e-08", "36.7%", "2^-24", "~3.4e+38") line up on the right.
bool looks_numeric(const std::string& cell) {
  if (cell.empty()) return false;
  const std::size_t at = cell.find_first_not_of("+-~");  // sign or "approximately"
  return at < cell.size() && (std::isdigit(static_cast<unsigned char>(cell[at])) || cell[at] == '.');
}

std::string csv_field(const std::string& cell) {
  if (cell.find_first_of(",\"\n") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char c : cell) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

}  // namespace

void print_table(std::ostream& out, const Table& table) {
  if (!table.title.empty()) out << table.title << "\n\n";
  std::vector<std::size_t> widths;
  for (const auto& column : table.columns) widths.push_back(column.size());
  for (const auto& row : table.rows)
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  auto print_row = [&](const std::vector<std::string>& cells, bool header) {
    std::string line = "  ";
    for (std::size_t i = 0; i < cells.size() && i < widths.size(); ++i) {
      const std::string& cell = cells[i];
      const std::string padding(widths[i] - cell.size(), ' ');
      const bool right = !header ? looks_numeric(cell) && i > 0 : false;
      line += right ? padding + cell : cell + padding;
      if (i + 1 < cells.size()) line += "  ";
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
  };
  print_row(table.columns, true);
  std::size_t total = 0;
  for (auto width : widths) total += width + 2;
  out << "  " << std::string(total > 2 ? total - 2 : 0, '-') << '\n';
  for (const auto& row : table.rows) print_row(row, false);
  for (const auto& note : table.notes) out << "  " << note << '\n';
  out << '\n';
}

void write_csv(const std::string& path, const Table& table) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write the CSV file '" + escape_unprintable(path) + "'");
  auto write_row = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) file << (i ? "," : "") << csv_field(cells[i]);
    file << '\n';
  };
  write_row(table.columns);
  for (const auto& row : table.rows) write_row(row);
  file.close();
  if (!file) throw std::runtime_error("cannot write the CSV file '" + escape_unprintable(path) + "'");
}

}  // namespace softfloat::cli
