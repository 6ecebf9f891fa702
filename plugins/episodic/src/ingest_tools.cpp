#include "tools.hpp"
namespace kioku::episodic {
void RegisterIngestTools(sdk::Registrar&, Env&) {}
}  // namespace kioku::episodic
