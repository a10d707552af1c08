# docs/index.md runs as shown (issue 31): its C++ snippet is extracted at configure time (docs/index.md
# is a configure dependency) and compiled with exactly the libraries its cmake snippet links, against
# the build tree; my_kernel.cpp stands in for the user's kernel. check_index.py runs the shell lines
# (against the built CLI) and the Python snippet (PYTHONPATH: the built package). Label docs.
set(KVADDR_DOCS_INDEX ${PROJECT_SOURCE_DIR}/docs/index.md)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${KVADDR_DOCS_INDEX})
file(READ ${KVADDR_DOCS_INDEX} kvaddr_index_text)
set(kvaddr_index_cpp "")
string(FIND "${kvaddr_index_text}" "```cpp\n" kvaddr_at)
if(kvaddr_at GREATER_EQUAL 0)
  math(EXPR kvaddr_at "${kvaddr_at} + 7")
  string(SUBSTRING "${kvaddr_index_text}" ${kvaddr_at} -1 kvaddr_index_cpp)
  string(FIND "${kvaddr_index_cpp}" "\n```" kvaddr_end)
  string(SUBSTRING "${kvaddr_index_cpp}" 0 ${kvaddr_end} kvaddr_index_cpp)
endif()
string(REGEX MATCH "target_link_libraries\\(my_tests PRIVATE ([^)]*)\\)" kvaddr_index_link "${kvaddr_index_text}")
if(NOT kvaddr_index_cpp OR NOT kvaddr_index_link)
  message(FATAL_ERROR "docs/index.md: no ```cpp snippet or no target_link_libraries(my_tests PRIVATE ...) line")
endif()
separate_arguments(kvaddr_index_libs UNIX_COMMAND "${CMAKE_MATCH_1}")
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/docs/index_snippet.cpp CONTENT "${kvaddr_index_cpp}\n" @ONLY)
add_executable(kvaddr_docs_index_cpp ${CMAKE_CURRENT_BINARY_DIR}/docs/index_snippet.cpp
                                     ${CMAKE_CURRENT_SOURCE_DIR}/docs/my_kernel.cpp)
target_link_libraries(kvaddr_docs_index_cpp PRIVATE ${kvaddr_index_libs})
add_test(NAME docs_index_cpp COMMAND kvaddr_docs_index_cpp)
set_tests_properties(docs_index_cpp PROPERTIES LABELS docs PASS_REGULAR_EXPRESSION "\\[  PASSED  \\] 1 test")

find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND AND TARGET kvaddr)
  set(kvaddr_index_env "KVADDR_DOCS_PYTHONPATH=")
  set(kvaddr_index_python ${Python3_EXECUTABLE})
  if(TARGET kvaddr_python)  # the package's own interpreter (numpy, the extension's ABI)
    set(kvaddr_index_env "KVADDR_DOCS_PYTHONPATH=${PROJECT_BINARY_DIR}/python/package")
    set(kvaddr_index_python ${KVADDR_PYTHON})
  endif()
  add_test(NAME docs_index_snippets
           COMMAND ${kvaddr_index_python} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_index.py ${KVADDR_DOCS_INDEX}
                   $<TARGET_FILE:kvaddr>)
  set_tests_properties(docs_index_snippets PROPERTIES LABELS docs TIMEOUT 300 ENVIRONMENT "${kvaddr_index_env}")
endif()

# The install line of docs/python.md, verbatim, in a clean venv on a copy of the source (label install;
# a few minutes cold: it builds the extension; skipped with a message without python3-venv).
if(TARGET kvaddr_python)
  add_test(NAME python_pip_install
           COMMAND ${KVADDR_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/install/check_pip_install.py ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/pip-install ${KVADDR_PYTHON})
  set_tests_properties(python_pip_install PROPERTIES LABELS install TIMEOUT 1500 SKIP_RETURN_CODE 77 COST 120)
endif()
