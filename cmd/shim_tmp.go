package cmd

// asyncTool is replaced by the tool registry.
func asyncTool(tool string) bool { return tool == "run_tracking" || tool == ToolProve }
