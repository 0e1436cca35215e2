// The report pages' shared inline style sheet (internal to the report module).
#pragma once

namespace tritonrl::report {

const char* ReportStyle();  // CSS text, without the <style> element

}  // namespace tritonrl::report
