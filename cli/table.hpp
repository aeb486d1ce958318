// Tables: what the subcommands print, and what --csv writes for the plots.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace softfloat::cli {

struct Table {
  std::string title;                           // printed above the table, not written to CSV
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // each as wide as `columns`
  std::vector<std::string> notes;              // printed below the table, one per line
};

// Aligned columns: text cells to the left, numbers to the right.
void print_table(std::ostream& out, const Table& table);

// RFC 4180 CSV: a header line of column names, then one line per row. Throws
// std::runtime_error naming the file if it cannot be written.
void write_csv(const std::string& path, const Table& table);

}  // namespace softfloat::cli
