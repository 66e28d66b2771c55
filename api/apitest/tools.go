package apitest

import "encoding/json"

// DefaultToolList is the tool list of unscripted calls: the spec's five
// tools as JSON Schema, in the {"tools": [...]} shape.
var DefaultToolList = json.RawMessage(`{"tools": [
 {"slug": "vendor_search", "name": "Web search", "description": "Keyword web search with an optional AI answer",
  "input_schema": {"type": "object", "required": ["query"], "properties": {
   "query": {"type": "string", "description": "search keywords"},
   "max_results": {"type": "integer", "default": 5, "minimum": 1, "maximum": 20},
   "search_depth": {"type": "string", "default": "basic", "enum": ["basic", "advanced", "fast", "ultra-fast"]},
   "topic": {"type": "string", "default": "general", "enum": ["general", "news", "finance"]},
   "time_range": {"type": "string", "enum": ["day", "week", "month", "year"]},
   "start_date": {"type": "string", "format": "date"},
   "end_date": {"type": "string", "format": "date"},
   "country": {"type": "string"},
   "include_answer": {"type": "boolean", "default": false},
   "include_images": {"type": "boolean", "default": false},
   "include_image_descriptions": {"type": "boolean", "default": false},
   "include_raw_content": {"type": "boolean", "default": false},
   "include_favicon": {"type": "boolean", "default": false},
   "exact_match": {"type": "boolean", "default": false},
   "include_domains": {"type": "string"},
   "exclude_domains": {"type": "string"}}}},
 {"slug": "vendor_extract", "name": "Extract", "description": "Extract page bodies from URLs",
  "input_schema": {"type": "object", "required": ["urls"], "properties": {
   "urls": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
   "extract_depth": {"type": "string", "default": "basic", "enum": ["basic", "advanced"]},
   "format": {"type": "string", "default": "markdown", "enum": ["markdown", "text"]},
   "include_images": {"type": "boolean", "default": false},
   "include_favicon": {"type": "boolean", "default": false},
   "query": {"type": "string"}}}},
 {"slug": "vendor_crawl", "name": "Crawl", "description": "Crawl a site",
  "input_schema": {"type": "object", "required": ["url"], "properties": {
   "url": {"type": "string"},
   "max_depth": {"type": "integer", "default": 1, "minimum": 1, "maximum": 5},
   "max_breadth": {"type": "integer", "default": 20, "minimum": 1, "maximum": 500},
   "limit": {"type": "integer", "default": 50, "minimum": 1},
   "instructions": {"type": "string"},
   "extract_depth": {"type": "string", "enum": ["basic", "advanced"]},
   "format": {"type": "string", "enum": ["markdown", "text"]},
   "include_favicon": {"type": "boolean"},
   "allow_external": {"type": "boolean", "default": true},
   "select_paths": {"type": "string"},
   "select_domains": {"type": "string"}}}},
 {"slug": "vendor_map", "name": "Map", "description": "List a site's URLs",
  "input_schema": {"type": "object", "required": ["url"], "properties": {
   "url": {"type": "string"},
   "max_depth": {"type": "integer", "default": 1, "minimum": 1, "maximum": 5},
   "max_breadth": {"type": "integer", "default": 20, "minimum": 1, "maximum": 500},
   "limit": {"type": "integer", "default": 50, "minimum": 1},
   "instructions": {"type": "string"},
   "allow_external": {"type": "boolean", "default": true},
   "select_paths": {"type": "string"},
   "select_domains": {"type": "string"}}}},
 {"slug": "vendor_research", "name": "Research", "description": "Multi-round research report",
  "input_schema": {"type": "object", "required": ["input"], "properties": {
   "input": {"type": "string"},
   "model": {"type": "string", "default": "auto", "enum": ["mini", "pro", "auto"]}}}}
]}`)
