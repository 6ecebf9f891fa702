# kioku_add_plugin(<name> SOURCES <core sources...> ENTRY <entry.cpp> [TESTS <test sources...>]
#                  [TEST_LIBS <libs...>])
#
# Builds the same sources twice over (DuckDB extension pattern):
#   <name>_core      static PIC library, linked by unit tests (no dlopen)
#   kioku-<name>     loadable MODULE with the KIOKU_PLUGIN entry point, placed in
#                    <build>/lib/kioku/plugins and installed to lib/kioku/plugins.
#   <name>_test      GoogleTest executable over <name>_core (when TESTS given and
#                    KIOKU_BUILD_TESTS is on; inside kioku's tree it also links the hermetic
#                    test host, kioku::host_testing).
# Works inside kioku's own tree and, through find_package(kioku), in a plugin's own project:
# it sets what a module needs itself (C++20, PIC, hidden visibility, --no-undefined).
function(kioku_add_plugin layer)
  cmake_parse_arguments(ARG "" "ENTRY" "SOURCES;TESTS;TEST_LIBS" ${ARGN})
  if(NOT ARG_ENTRY)
    message(FATAL_ERROR "kioku_add_plugin(${layer}): ENTRY <file with KIOKU_PLUGIN> is required")
  endif()
  set(output_dir ${KIOKU_PLUGIN_OUTPUT_DIR})
  if(NOT output_dir)
    set(output_dir ${CMAKE_BINARY_DIR}/lib/kioku/plugins)
  endif()
  set(install_dir ${KIOKU_PLUGIN_INSTALL_DIR})
  if(NOT install_dir)
    set(install_dir lib/kioku/plugins)
  endif()
  set(warnings "")
  if(TARGET kioku::warnings)
    set(warnings kioku::warnings)
  endif()

  set(core ${layer}_core)
  add_library(${core} STATIC ${ARG_SOURCES})
  target_include_directories(${core} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(${core} PUBLIC kioku::sdk PRIVATE ${warnings})

  set(module kioku-${layer})
  add_library(${module} MODULE ${ARG_ENTRY})
  set_target_properties(${module} PROPERTIES PREFIX "" LIBRARY_OUTPUT_DIRECTORY ${output_dir})
  target_link_libraries(${module} PRIVATE ${core} ${warnings})
  target_link_options(${module} PRIVATE -Wl,--no-undefined)
  # Boost.DLL rules: only the entry points and KIOKU_EXPORT types are visible.
  set_target_properties(${core} ${module} PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  install(TARGETS ${module} LIBRARY DESTINATION ${install_dir})

  if(KIOKU_BUILD_TESTS AND ARG_TESTS)
    set(test_host "")
    if(TARGET kioku::host_testing)
      set(test_host kioku::host_testing)
    endif()
    add_executable(${layer}_test ${ARG_TESTS})
    target_link_libraries(${layer}_test PRIVATE ${core} ${test_host} ${ARG_TEST_LIBS}
      GTest::gtest GTest::gmock GTest::gtest_main ${warnings})
    gtest_discover_tests(${layer}_test DISCOVERY_TIMEOUT 60 PROPERTIES LABELS unit)
  endif()
endfunction()
