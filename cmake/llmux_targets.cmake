# llmux_module(NAME SOURCES... DEPS...) declares one src/<module> static library.
function(llmux_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(llmux_${name} STATIC ${ARG_SOURCES})
  target_include_directories(llmux_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(llmux_${name} PUBLIC ${ARG_DEPS})
endfunction()

# llmux_unit_test(NAME SOURCES... DEPS...) adds one GoogleTest binary, registered with CTest
# under the label "unit".
function(llmux_unit_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE LLMUX_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS unit TIMEOUT 300)
  set_property(GLOBAL APPEND PROPERTY LLMUX_UNIT_TESTS ${name})
endfunction()
